#include "runtime/process/console.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <cstring>

#include "base/strings.h"

namespace vigil::runtime {
namespace {

Result<void> SendFd(int socket_fd, int fd, std::string_view name) {
  iovec iov{.iov_base = const_cast<char*>(name.data()), .iov_len = name.size()};
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
  if (::sendmsg(socket_fd, &msg, MSG_NOSIGNAL) < 0) {
    return FailErrno("send the terminal to the console socket");
  }
  return {};
}

}  // namespace

Result<UniqueFd> ConnectConsoleSocket(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return Fail(StrCat("console socket path too long: ", path));
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return FailErrno("console socket");
  if (::connect(fd.Get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return FailErrno(StrCat("connect to console socket ", path));
  }
  return fd;
}

Result<void> SetupConsole(int socket_fd, const std::optional<config::ConsoleSize>& size) {
  UniqueFd master(::open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master) return FailErrno("open /dev/ptmx");
  if (::unlockpt(master.Get()) != 0) return FailErrno("unlock the terminal");
  char name[64];
  if (::ptsname_r(master.Get(), name, sizeof name) != 0) return FailErrno("name the terminal");
  UniqueFd slave(::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!slave) return FailErrno(StrCat("open ", name));
  if (size) {
    winsize ws{.ws_row = static_cast<unsigned short>(size->height),
               .ws_col = static_cast<unsigned short>(size->width)};
    if (::ioctl(slave.Get(), TIOCSWINSZ, &ws) != 0) return FailErrno("set the terminal size");
  }
  RETURN_IF_ERROR(SendFd(socket_fd, master.Get(), name));
  for (int target = 0; target <= 2; ++target) {
    if (::dup2(slave.Get(), target) < 0) return FailErrno("attach the terminal to stdio");
  }
  if (::ioctl(0, TIOCSCTTY, 0) != 0) return FailErrno("make the terminal the controlling one");
  return {};
}

}  // namespace vigil::runtime
