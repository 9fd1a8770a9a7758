#include "base/unix_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/strings.h"

namespace vigil {
namespace {

Result<sockaddr_un> AddressOf(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    return Fail(StrCat("socket path ", Quote(path), ": must be 1 to ", sizeof addr.sun_path - 1,
                       " bytes long"));
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

}  // namespace

Result<UniqueFd> ConnectUnix(const std::string& path, int type) {
  ASSIGN_OR_RETURN(sockaddr_un addr, AddressOf(path));
  UniqueFd fd(::socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
  if (!fd) return FailErrno("socket");
  int rc;
  do {
    rc = ::connect(fd.Get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return FailErrno(StrCat("connect to ", path));
  return fd;
}

Result<UniqueFd> ListenUnix(const std::string& path, int type, int backlog) {
  ASSIGN_OR_RETURN(sockaddr_un addr, AddressOf(path));
  UniqueFd fd(::socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
  if (!fd) return FailErrno("socket");
  ::unlink(path.c_str());  // a stale socket from a crashed owner
  if (::bind(fd.Get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return FailErrno(StrCat("bind ", path));
  }
  if (::listen(fd.Get(), backlog) != 0) return FailErrno(StrCat("listen on ", path));
  return fd;
}

Result<void> SendWithFd(int socket, std::string_view data, int fd) {
  iovec iov{.iov_base = const_cast<char*>(data.data()), .iov_len = data.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  }
  ssize_t sent;
  do {
    sent = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) return FailErrno("sendmsg");
  // A stream socket may take the rest in pieces; the descriptor went first.
  std::size_t done = static_cast<std::size_t>(sent);
  while (done < data.size()) {
    ssize_t n = ::send(socket, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno("send");
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Result<std::string> ReceiveWithFd(int socket, std::size_t max, UniqueFd* fd) {
  std::string data(max, '\0');
  iovec iov{.iov_base = data.data(), .iov_len = data.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return FailErrno("recvmsg");
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); cmsg != nullptr; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
      int received = -1;
      std::memcpy(&received, CMSG_DATA(cmsg), sizeof received);
      UniqueFd owned(received);
      if (fd != nullptr) *fd = std::move(owned);
    }
  }
  if (n == 0) return FailErrno(EPIPE, "peer closed the socket");
  data.resize(static_cast<std::size_t>(n));
  return data;
}

}  // namespace vigil
