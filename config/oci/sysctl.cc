#include "config/oci/sysctl.h"

#include <algorithm>

namespace vigil::config {

std::optional<std::string> SysctlRelativePath(std::string_view key) {
  std::string path(key);
  if (path.find('/') == std::string::npos) std::replace(path.begin(), path.end(), '.', '/');
  std::size_t start = 0;
  for (;;) {
    std::size_t end = path.find('/', start);
    std::string_view component =
        std::string_view(path).substr(start, end == std::string::npos ? end : end - start);
    if (component.empty() || component == "." || component == "..") return std::nullopt;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return path;
}

std::string DottedSysctl(std::string_view key) {
  std::string dotted(key);
  if (dotted.find('/') != std::string::npos) std::replace(dotted.begin(), dotted.end(), '/', '.');
  return dotted;
}

}  // namespace vigil::config
