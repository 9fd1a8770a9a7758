#include "runtime/linux/session.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "base/unique_fd.h"

namespace vigil::runtime {

Result<void> LeaveTerminalSession() {
  if (::setsid() >= 0) return {};
  if (errno != EPERM) return FailErrno("setsid");
  // A group leader: /dev/tty is its controlling terminal, if it has one.
  UniqueFd terminal(::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!terminal) {
    if (errno == ENXIO) return {};  // none to leave
    return FailErrno("open /dev/tty to leave it");
  }
  if (::ioctl(terminal.Get(), TIOCNOTTY) != 0) return FailErrno("leave the controlling terminal");
  return {};
}

}  // namespace vigil::runtime
