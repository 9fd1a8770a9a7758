#include "shim/control.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>

#include "base/strings.h"
#include "base/unix_socket.h"

namespace vigil::shim {
namespace {

constexpr std::size_t kMaxMessage = 8192;

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

Result<UniqueFd> ListenControl(const std::string& path) {
  UniqueFd dir;
  ASSIGN_OR_RETURN(std::string reachable, ReachablePath(path, dir));
  return ListenUnix(reachable, SOCK_SEQPACKET, 16);
}

Result<std::string> CallControl(const std::string& path, std::string_view request, int fd) {
  UniqueFd dir;
  ASSIGN_OR_RETURN(std::string reachable, ReachablePath(path, dir));
  Result<UniqueFd> conn = ConnectUnix(reachable, SOCK_SEQPACKET);
  if (!conn) {
    return tl::unexpected(std::move(conn).error().Wrap("reach the container's supervisor"));
  }
  RETURN_IF_ERROR(WriteMessage(conn->Get(), request, fd));
  ASSIGN_OR_RETURN(std::string reply, ReadMessage(conn->Get(), nullptr));
  if (reply.starts_with("error ")) return Fail(reply.substr(6));
  if (reply.empty()) return Fail("the container's supervisor exited without a reply");
  return reply;
}

Result<std::string> ReadRequest(int conn, UniqueFd* fd) { return ReadMessage(conn, fd); }

void Reply(int conn, const Result<void>& result) {
  (void)WriteMessage(conn, result ? std::string("ok") : "error " + result.error().message);
}

}  // namespace vigil::shim
