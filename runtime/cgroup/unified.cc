// linux.resources.unified: cgroup2 file -> value, written as given into the
// container's cgroup2 directory after every typed field (so a key overrides
// the typed field it overlaps, as in runc).
//
// On a hybrid host only keys whose controller lives on the cgroup2 mount can
// be written (hugetlb.* here), plus the core "cgroup.*" files; a key for a
// controller held by a v1 hierarchy is an error pointing at the typed field,
// and on a v1-only host every key is an error naming it.
#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {

Result<void> ApplyUnified(const Knobs& knobs, const config::Resources& r) {
  for (const auto& [key, value] : r.unified) {
    std::string at = StrCat("linux.resources.unified[", Quote(key), "]");
    std::size_t dot = key.find('.');
    if (dot == 0 || dot == std::string::npos || dot + 1 == key.size() ||
        key.find('/') != std::string::npos) {
      return Fail(StrCat(at, ": expected a cgroup2 file name of the form CONTROLLER.PARAMETER"));
    }
    const Placement* v2 = knobs.Unified();
    if (v2 == nullptr) {
      // "invalid configuration" (here and below): runc's words, which its
      // tests match.
      return Fail(StrCat(at,
                         ": invalid configuration: unified keys need cgroup v2, and this "
                         "host mounts only v1"));
    }
    std::string controller = key.substr(0, dot);
    const Placement* where = v2;
    if (controller != "cgroup") {
      const Placement* holder = knobs.Find(controller);
      if (holder != nullptr && !holder->hierarchy.v2) {
        return Fail(StrCat(at, ": invalid configuration: the ", controller,
                           " controller is on a cgroup v1 hierarchy on this host, not on "
                           "cgroup2; use the typed linux.resources fields for it"));
      }
      if (holder == nullptr) {
        return Fail(StrCat(at, ": the ", controller,
                           " controller is not available on this host's cgroup2 mount"));
      }
      ASSIGN_OR_RETURN(where, knobs.Require(controller, at));
    }
    RETURN_IF_ERROR(knobs.Write(*where, key, value, at));
  }
  return {};
}

}  // namespace vigil::runtime::cgroup
