#include "runtime/container/update.h"

#include <algorithm>

#include "base/strings.h"
#include "config/oci/validate.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/status.h"

namespace vigil::runtime {
namespace {

template <typename T>
void Override(const std::optional<T>& from, std::optional<T>& to) {
  if (from) to = from;
}

void Override(const std::string& from, std::string& to) {
  if (!from.empty()) to = from;
}

template <typename T>
void OverrideList(const std::vector<T>& from, std::vector<T>& to) {
  if (!from.empty()) to = from;
}

void MergeMemory(const config::Memory& from, config::Memory& to) {
  Override(from.limit, to.limit);
  Override(from.reservation, to.reservation);
  Override(from.swap, to.swap);
  Override(from.kernel, to.kernel);
  Override(from.kernel_tcp, to.kernel_tcp);
  Override(from.swappiness, to.swappiness);
  Override(from.disable_oom_killer, to.disable_oom_killer);
  Override(from.use_hierarchy, to.use_hierarchy);
  Override(from.check_before_update, to.check_before_update);
  // runc: "unlimited memory" asked alone means unlimited memory+swap, or the
  // old memory+swap limit would now be below the memory limit.
  if (from.limit == -1 && !from.swap) to.swap = -1;
}

void MergeCpu(const config::Cpu& from, config::Cpu& to) {
  Override(from.shares, to.shares);
  Override(from.quota, to.quota);
  Override(from.burst, to.burst);
  Override(from.period, to.period);
  Override(from.realtime_runtime, to.realtime_runtime);
  Override(from.realtime_period, to.realtime_period);
  Override(from.cpus, to.cpus);
  Override(from.mems, to.mems);
  Override(from.idle, to.idle);
}

void MergeBlockIo(const config::BlockIo& from, config::BlockIo& to) {
  Override(from.weight, to.weight);
  Override(from.leaf_weight, to.leaf_weight);
  OverrideList(from.weight_device, to.weight_device);
  OverrideList(from.throttle_read_bps_device, to.throttle_read_bps_device);
  OverrideList(from.throttle_write_bps_device, to.throttle_write_bps_device);
  OverrideList(from.throttle_read_iops_device, to.throttle_read_iops_device);
  OverrideList(from.throttle_write_iops_device, to.throttle_write_iops_device);
}

void MergeHugepages(const std::vector<config::HugepageLimit>& from,
                    std::vector<config::HugepageLimit>& to) {
  for (const config::HugepageLimit& limit : from) {
    auto same_size = [&](const config::HugepageLimit& l) { return l.page_size == limit.page_size; };
    if (auto it = std::find_if(to.begin(), to.end(), same_size); it != to.end()) {
      *it = limit;
    } else {
      to.push_back(limit);
    }
  }
}

// The section `changes` has, merged into the one `into` has (made empty
// first if it has none).
template <typename T, typename Merge>
void MergeSection(const std::optional<T>& from, std::optional<T>& to, Merge merge) {
  if (!from) return;
  if (!to) to.emplace();
  merge(*from, *to);
}

}  // namespace

void MergeResources(const config::Resources& changes, config::Resources& into) {
  MergeSection(changes.memory, into.memory, MergeMemory);
  MergeSection(changes.cpu, into.cpu, MergeCpu);
  Override(changes.pids, into.pids);
  MergeSection(changes.block_io, into.block_io, MergeBlockIo);
  MergeHugepages(changes.hugepage_limits, into.hugepage_limits);
  MergeSection(changes.network, into.network, [](const config::Network& from, config::Network& to) {
    Override(from.class_id, to.class_id);
    OverrideList(from.priorities, to.priorities);
  });
  for (const auto& [device, limits] : changes.rdma) into.rdma.insert_or_assign(device, limits);
  for (const auto& [file, value] : changes.unified) into.unified.insert_or_assign(file, value);
}

Result<void> UpdateContainer(const std::string& root, const std::string& id,
                             const config::Resources& changes) {
  ASSIGN_OR_RETURN(StateDir dir, StateDir::Open(root, id));
  ASSIGN_OR_RETURN(ContainerRecord record, dir.LoadRecord());
  RETURN_IF_ERROR(CheckTransition(Verb::kUpdate, CurrentStatus(record), id));
  ASSIGN_OR_RETURN(config::Spec spec, dir.LoadConfig());
  if (!spec.linux_spec) spec.linux_spec.emplace();
  if (!spec.linux_spec->resources) spec.linux_spec->resources.emplace();
  config::Resources& resources = *spec.linux_spec->resources;
  MergeResources(changes, resources);
  RETURN_IF_ERROR(config::Validate(spec));

  ASSIGN_OR_RETURN(std::optional<cgroup::Cgroup> cg, ContainerCgroup(record));
  if (!cg) return Fail(StrCat("container ", Quote(id), " has no cgroup to update"));
  // The device rules were written at create from linux.devices as well;
  // rewriting them from linux.resources alone would lose those (runc's
  // update skips devices for the same reason).
  config::Resources to_apply = resources;
  to_apply.devices.clear();
  RETURN_IF_ERROR(cg->Apply(to_apply));
  return dir.SaveConfig(spec);
}

}  // namespace vigil::runtime
