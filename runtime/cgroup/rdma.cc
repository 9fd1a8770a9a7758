// linux.resources.rdma: one "DEVICE hca_handle=N hca_object=M" line per
// device to rdma.max (the same on v1 and v2); an unset count is "max".
#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {

Result<void> ApplyRdma(const Knobs& knobs, const config::Resources& r) {
  for (const auto& [device, limits] : r.rdma) {
    std::string at = StrCat("linux.resources.rdma[", Quote(device), "]");
    if (device.empty() || device.find_first_of(" \n\t=") != std::string::npos) {
      return Fail(StrCat(at, ": not a device name"));
    }
    ASSIGN_OR_RETURN(const Placement* p, knobs.Require("rdma", at));
    auto count = [](const std::optional<std::uint32_t>& n) {
      return n ? StrCat(*n) : std::string("max");
    };
    RETURN_IF_ERROR(knobs.Write(*p, "rdma.max",
                                StrCat(device, " hca_handle=", count(limits.hca_handles),
                                       " hca_object=", count(limits.hca_objects)),
                                at));
  }
  return {};
}

}  // namespace vigil::runtime::cgroup
