#include "runtime/linux/seccomp_listener.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil::runtime {
namespace {

// Sends all of `data`, the first byte carrying `fd` in SCM_RIGHTS. The spec
// allows several sendmsg(2) calls as long as the fds go with the first.
Result<void> SendWithFd(int sock, std::string_view data, int fd) {
  iovec iov{.iov_base = const_cast<char*>(data.data()), .iov_len = data.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  ssize_t sent;
  do {
    sent = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) return FailErrno("sendmsg");
  std::size_t done = static_cast<std::size_t>(sent);
  while (done < data.size()) {
    ssize_t n = ::send(sock, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno("send");
    done += static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace

std::string ContainerProcessState(int pid, std::string_view metadata, const config::State& state) {
  json::Writer w;
  w.BeginObject();
  w.Key("ociVersion");
  w.String(state.oci_version);
  w.Key("fds");
  w.BeginArray();
  w.String("seccompFd");
  w.EndArray();
  w.Key("pid");
  w.Int(pid);
  if (!metadata.empty()) {
    w.Key("metadata");
    w.String(metadata);
  }
  w.EndObject();
  std::string out = w.Take();
  // json::Writer cannot embed a finished document, so the state object, in
  // DumpState's one encoding, goes in before the closing brace.
  out.pop_back();
  out += ",\"state\":";
  out += config::DumpState(state);
  out += '}';
  return out;
}

Result<void> SendSeccompListener(const std::string& listener_path, int listener_fd,
                                 std::string_view process_state_json) {
  const std::string context = StrCat("seccomp listener ", Quote(listener_path));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (listener_path.empty() || listener_path.size() >= sizeof addr.sun_path) {
    return Fail(
        StrCat(context, ": a socket path must be 1 to ", sizeof addr.sun_path - 1, " bytes long"));
  }
  // At least one byte must go with the fd, or nothing carries it.
  if (process_state_json.empty()) return Fail(StrCat(context, ": empty container process state"));
  std::memcpy(addr.sun_path, listener_path.data(), listener_path.size());
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock) return FailErrno(StrCat(context, ": socket"));
  int rc;
  do {
    rc = ::connect(sock.Get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return FailErrno(StrCat(context, ": connect"));
  RETURN_IF_ERROR_WRAP(SendWithFd(sock.Get(), process_state_json, listener_fd), context);
  // One state per connection, then close (UniqueFd does).
  return {};
}

}  // namespace vigil::runtime
