#include "runtime/container/supervisor_control.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>

#include "base/strings.h"
#include "base/unix_socket.h"

namespace vigil::runtime {
namespace {

constexpr std::size_t kMaxMessage = 8192;

struct VerbName {
  ControlVerb verb;
  std::string_view name;
};
constexpr VerbName kVerbNames[] = {
    {ControlVerb::kStart, "start"},   {ControlVerb::kListener, "listener"},
    {ControlVerb::kTracee, "tracee"}, {ControlVerb::kTrim, "trim"},
    {ControlVerb::kPaused, "paused"}, {ControlVerb::kResumed, "resumed"},
};

Result<std::string> ReadMessage(int fd, UniqueFd* attached) {
  Result<std::string> message = ReceiveWithFd(fd, kMaxMessage, attached);
  if (!message && message.error().code == EPIPE) return std::string();
  if (!message) return tl::unexpected(std::move(message).error().Wrap("read from control socket"));
  return message;
}

Result<void> WriteMessage(int fd, std::string_view text, int attached = -1) {
  RETURN_IF_ERROR_WRAP(SendWithFd(fd, text, attached), "write to control socket");
  return {};
}

// sockaddr_un holds 107 bytes, and a state directory under a client's root
// can be longer (dockerd's /var/run/docker/runtime-runc/moby/<64-hex id>/):
// such a socket is reached as /proc/self/fd/N/control.sock, N its directory
// opened here (`dir` keeps it open for the bind or connect).
Result<std::string> ReachablePath(const std::string& path, UniqueFd& dir) {
  std::size_t slash = path.rfind('/');
  if (path.size() < sizeof(sockaddr_un::sun_path) || slash == std::string::npos) return path;
  std::string parent = slash == 0 ? "/" : path.substr(0, slash);
  dir.Reset(::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return FailErrno(StrCat("open ", parent));
  return StrCat("/proc/self/fd/", dir.Get(), path.substr(slash));
}

}  // namespace

std::string EncodeControlRequest(const ControlRequest& request) {
  for (const VerbName& entry : kVerbNames) {
    if (entry.verb != request.verb) continue;
    if (request.verb != ControlVerb::kTracee) return std::string(entry.name);
    return StrCat(entry.name, " ", request.channel_number);
  }
  return "?";
}

Result<ControlRequest> DecodeControlRequest(std::string_view text) {
  std::string_view name = text.substr(0, text.find(' '));
  std::string_view rest = name.size() < text.size() ? text.substr(name.size() + 1) : "";
  for (const VerbName& entry : kVerbNames) {
    if (entry.name != name) continue;
    // Only kTracee carries an argument, and it must.
    if ((entry.verb == ControlVerb::kTracee) != !rest.empty()) break;
    return ControlRequest{.verb = entry.verb, .channel_number = std::string(rest)};
  }
  return Fail(StrCat("unknown request ", Quote(text)));
}

Result<UniqueFd> ListenControl(const std::string& path) {
  UniqueFd dir;
  ASSIGN_OR_RETURN(std::string reachable, ReachablePath(path, dir));
  return ListenUnix(reachable, SOCK_SEQPACKET, 16);
}

Result<void> CallSupervisor(const std::string& path, const ControlRequest& request, int fd) {
  UniqueFd dir;
  ASSIGN_OR_RETURN(std::string reachable, ReachablePath(path, dir));
  Result<UniqueFd> conn = ConnectUnix(reachable, SOCK_SEQPACKET);
  if (!conn) {
    return tl::unexpected(std::move(conn).error().Wrap("reach the container's supervisor"));
  }
  RETURN_IF_ERROR(WriteMessage(conn->Get(), EncodeControlRequest(request), fd));
  ASSIGN_OR_RETURN(std::string reply, ReadMessage(conn->Get(), nullptr));
  if (reply.starts_with("error ")) return Fail(reply.substr(6));
  if (reply.empty()) return Fail("the container's supervisor exited without a reply");
  return {};
}

Result<ControlRequest> ReadControlRequest(int conn, UniqueFd* fd) {
  ASSIGN_OR_RETURN(std::string text, ReadMessage(conn, fd));
  if (text.empty()) return Fail("the client left without a request");
  ASSIGN_OR_RETURN(ControlRequest request, DecodeControlRequest(text));
  if (request.TakesDescriptor() && !*fd) {
    return Fail(StrCat("request ", Quote(text), " came without its descriptor"));
  }
  return request;
}

void Reply(int conn, const Result<void>& result) {
  (void)WriteMessage(conn, result ? std::string("ok") : "error " + result.error().message);
}

}  // namespace vigil::runtime
