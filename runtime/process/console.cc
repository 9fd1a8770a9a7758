#include "runtime/process/console.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>

#include "base/strings.h"
#include "base/unix_socket.h"

namespace vigil::runtime {
Result<UniqueFd> ConnectConsoleSocket(const std::string& path) {
  Result<UniqueFd> fd = ConnectUnix(path, SOCK_STREAM);
  if (!fd) return tl::unexpected(std::move(fd).error().Wrap("console socket"));
  return fd;
}

Result<void> SetupConsole(int socket_fd, const std::optional<config::ConsoleSize>& size,
                          uid_t owner) {
  UniqueFd master(::open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master) return FailErrno("open /dev/ptmx");
  if (::unlockpt(master.Get()) != 0) return FailErrno("unlock the terminal");
  char name[64];
  if (::ptsname_r(master.Get(), name, sizeof name) != 0) return FailErrno("name the terminal");
  UniqueFd slave(::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!slave) return FailErrno(StrCat("open ", name));
  // The process's own terminal, as runc gives it: its user owns it, the
  // group stays devpts's (tty). Only this terminal: never a file the
  // caller passed as stdio, which is the caller's to own. A uid or owner
  // the user namespace does not map (EINVAL, EPERM) leaves it as it is.
  struct stat st {};
  if (::fstat(slave.Get(), &st) != 0) return FailErrno(StrCat("stat ", name));
  if (st.st_uid != owner && ::fchown(slave.Get(), owner, st.st_gid) != 0 && errno != EINVAL &&
      errno != EPERM) {
    return FailErrno(StrCat("give ", name, " to uid ", owner));
  }
  if (size) {
    winsize ws{.ws_row = static_cast<unsigned short>(size->height),
               .ws_col = static_cast<unsigned short>(size->width)};
    if (::ioctl(slave.Get(), TIOCSWINSZ, &ws) != 0) return FailErrno("set the terminal size");
  }
  RETURN_IF_ERROR_WRAP(SendWithFd(socket_fd, name, master.Get()),
                       "send the terminal to the console socket");
  for (int target = 0; target <= 2; ++target) {
    if (::dup2(slave.Get(), target) < 0) return FailErrno("attach the terminal to stdio");
  }
  if (::ioctl(0, TIOCSCTTY, 0) != 0) return FailErrno("make the terminal the controlling one");
  return {};
}

}  // namespace vigil::runtime
