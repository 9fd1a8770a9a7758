#include "base/random.h"

#include <sys/random.h>

#include <vector>

namespace vigil {

Result<std::string> RandomHex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (::getrandom(raw.data(), raw.size(), 0) != static_cast<ssize_t>(raw.size())) {
    return FailErrno("getrandom");
  }
  std::string hex;
  for (unsigned char b : raw) {
    hex += "0123456789abcdef"[b >> 4];
    hex += "0123456789abcdef"[b & 15];
  }
  return hex;
}

}  // namespace vigil
