#include "runtime/container/container_cgroup.h"

namespace vigil::runtime {

Result<std::optional<cgroup::Cgroup>> ContainerCgroup(const ContainerRecord& record) {
  if (record.cgroup_paths.empty()) return std::nullopt;
  ASSIGN_OR_RETURN(std::vector<cgroup::Hierarchy> hierarchies, cgroup::DiscoverHierarchies());
  ASSIGN_OR_RETURN(cgroup::Cgroup cg, cgroup::Cgroup::FromPaths(hierarchies, record.cgroup_paths));
  return cg;
}

}  // namespace vigil::runtime
