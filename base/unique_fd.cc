#include "base/unique_fd.h"

#include <unistd.h>

namespace vigil {

void UniqueFd::Reset(int fd) {
  // close() is not retried on EINTR: on Linux the descriptor is released
  // whatever close() reports, and a retry could close a reused number.
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

}  // namespace vigil
