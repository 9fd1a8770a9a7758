#include "shim/control.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "base/strings.h"
#include "base/unix_socket.h"

namespace vigil::shim {
namespace {

constexpr std::size_t kMaxMessage = 8192;

Result<std::string> ReadMessage(int fd) {
  char buf[kMaxMessage];
  ssize_t n;
  do {
    n = ::recv(fd, buf, sizeof buf, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return FailErrno("read from control socket");
  return std::string(buf, static_cast<std::size_t>(n));
}

Result<void> WriteMessage(int fd, std::string_view text) {
  ssize_t n;
  do {
    n = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return FailErrno("write to control socket");
  return {};
}

}  // namespace

Result<UniqueFd> ListenControl(const std::string& path) {
  return ListenUnix(path, SOCK_SEQPACKET, 16);
}

Result<std::string> CallControl(const std::string& path, std::string_view request) {
  Result<UniqueFd> fd = ConnectUnix(path, SOCK_SEQPACKET);
  if (!fd) return tl::unexpected(std::move(fd).error().Wrap("reach the container's supervisor"));
  RETURN_IF_ERROR(WriteMessage(fd->Get(), request));
  ASSIGN_OR_RETURN(std::string reply, ReadMessage(fd->Get()));
  if (reply.starts_with("error ")) return Fail(reply.substr(6));
  if (reply.empty()) return Fail("the container's supervisor exited without a reply");
  return reply;
}

Result<std::string> ReadRequest(int conn) { return ReadMessage(conn); }

void Reply(int conn, const Result<void>& result) {
  (void)WriteMessage(conn, result ? std::string("ok") : "error " + result.error().message);
}

}  // namespace vigil::shim
