#include "runtime/container/container_cgroup.h"

namespace vigil::runtime {

Result<std::optional<cgroup::Cgroup>> ContainerCgroup(const ContainerRecord& record) {
  if (record.cgroup_paths.empty()) return std::nullopt;
  ASSIGN_OR_RETURN(std::vector<cgroup::Hierarchy> hierarchies, cgroup::DiscoverHierarchies());
  ASSIGN_OR_RETURN(cgroup::Cgroup cg, cgroup::Cgroup::FromPaths(hierarchies, record.cgroup_paths));
  return cg;
}

std::string_view FirstLimitSet(const config::Resources& r) {
  if (r.memory && *r.memory != config::Memory{}) return "linux.resources.memory";
  if (r.cpu && *r.cpu != config::Cpu{}) return "linux.resources.cpu";
  if (r.pids && r.pids->limit > 0) return "linux.resources.pids";
  if (r.block_io && *r.block_io != config::BlockIo{}) return "linux.resources.blockIO";
  if (!r.hugepage_limits.empty()) return "linux.resources.hugepageLimits";
  if (r.network && *r.network != config::Network{}) return "linux.resources.network";
  if (!r.rdma.empty()) return "linux.resources.rdma";
  if (!r.unified.empty()) return "linux.resources.unified";
  return {};
}

}  // namespace vigil::runtime
