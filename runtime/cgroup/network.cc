// linux.resources.network: net_cls.classid and net_prio.ifpriomap. Both are
// v1-only controllers (cgroup2 classifies sockets by cgroup path instead);
// without them mounted the fields cannot be honoured and are an error.
#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {

Result<void> ApplyNetwork(const Knobs& knobs, const config::Resources& r) {
  if (!r.network) return {};
  if (r.network->class_id) {
    constexpr std::string_view kClassId = "linux.resources.network.classID";
    ASSIGN_OR_RETURN(const Placement* p, knobs.Require("net_cls", kClassId));
    RETURN_IF_ERROR(knobs.Write(*p, "net_cls.classid", StrCat(*r.network->class_id), kClassId));
  }
  for (std::size_t i = 0; i < r.network->priorities.size(); ++i) {
    const config::InterfacePriority& prio = r.network->priorities[i];
    std::string at = StrCat("linux.resources.network.priorities[", i, "]");
    ASSIGN_OR_RETURN(const Placement* p, knobs.Require("net_prio", at));
    RETURN_IF_ERROR(
        knobs.Write(*p, "net_prio.ifpriomap", StrCat(prio.name, " ", prio.priority), at));
  }
  return {};
}

}  // namespace vigil::runtime::cgroup
