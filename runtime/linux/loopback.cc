#include "runtime/linux/loopback.h"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cstring>

#include "base/unique_fd.h"

namespace vigil::runtime {

Result<void> BringUpLoopback() {
  UniqueFd socket(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!socket) return FailErrno("bring the loopback interface up: socket");
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(socket.Get(), SIOCGIFFLAGS, &request) != 0) {
    return FailErrno("bring the loopback interface up: SIOCGIFFLAGS");
  }
  if ((request.ifr_flags & IFF_UP) != 0) return {};
  request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
  if (::ioctl(socket.Get(), SIOCSIFFLAGS, &request) != 0) {
    return FailErrno("bring the loopback interface up: SIOCSIFFLAGS");
  }
  return {};
}

}  // namespace vigil::runtime
