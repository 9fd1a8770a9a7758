#include "runtime/linux/rlimits.h"

#include <sys/resource.h>

#include <cerrno>

#include "base/strings.h"
#include "config/oci/names.h"

namespace vigil::runtime {

Result<void> ApplyRlimits(const std::vector<config::Rlimit>& rlimits) {
  for (const config::Rlimit& r : rlimits) {
    const config::NamedValue* resource = config::FindName(config::kRlimitNames, r.type);
    if (resource == nullptr) return Fail(StrCat("rlimit ", Quote(r.type), ": unknown"));
    auto which = static_cast<__rlimit_resource>(resource->value);
    rlimit current{};
    ::getrlimit(which, &current);
    rlimit wanted{.rlim_cur = r.soft, .rlim_max = r.hard};
    if (::setrlimit(which, &wanted) == 0) continue;
    if (errno == EPERM && r.hard > current.rlim_max) {
      return Fail(StrCat("rlimit ", r.type, ": cannot raise hard limit ", current.rlim_max, " to ",
                         r.hard, " (needs CAP_SYS_RESOURCE)"));
    }
    return FailErrno(StrCat("rlimit ", r.type, ": set soft ", r.soft, ", hard ", r.hard));
  }
  return {};
}

}  // namespace vigil::runtime
