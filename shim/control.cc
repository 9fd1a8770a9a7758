#include "shim/control.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/strings.h"

namespace vigil::shim {
namespace {

constexpr std::size_t kMaxMessage = 8192;

Result<sockaddr_un> Address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    return Fail(StrCat("control socket path too long (", path.size(), " bytes): ", path));
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

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
  ASSIGN_OR_RETURN(sockaddr_un addr, Address(path));
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd) return FailErrno("control socket");
  ::unlink(path.c_str());
  if (::bind(fd.Get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return FailErrno(StrCat("bind ", path));
  }
  if (::listen(fd.Get(), 16) != 0) return FailErrno(StrCat("listen on ", path));
  return fd;
}

Result<std::string> CallControl(const std::string& path, std::string_view request) {
  ASSIGN_OR_RETURN(sockaddr_un addr, Address(path));
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd) return FailErrno("control socket");
  if (::connect(fd.Get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return FailErrno("connect to the container's supervisor");
  }
  RETURN_IF_ERROR(WriteMessage(fd.Get(), request));
  ASSIGN_OR_RETURN(std::string reply, ReadMessage(fd.Get()));
  if (reply.starts_with("error ")) return Fail(reply.substr(6));
  if (reply.empty()) return Fail("the container's supervisor exited without a reply");
  return reply;
}

Result<std::string> ReadRequest(int conn) { return ReadMessage(conn); }

void Reply(int conn, const Result<void>& result) {
  (void)WriteMessage(conn, result ? std::string("ok") : "error " + result.error().message);
}

}  // namespace vigil::shim
