#include "lifecycle/update.h"

#include <algorithm>

#include "base/strings.h"
#include "config/oci/sections.h"
#include "config/oci/validate.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/status.h"

namespace vigil::lifecycle {
namespace {

// The section `changes` has, laid over the one `into` has (made empty first
// if it has none): the members it sets replace, the rest stay (the section's
// field table lists them, config/oci/parse_resources.cc).
template <typename T>
void OverlaySection(const std::optional<T>& from, std::optional<T>& to) {
  if (!from) return;
  if (!to) to.emplace();
  config::Overlay(*from, *to);
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

}  // namespace

void MergeResources(const config::Resources& changes, config::Resources& into) {
  OverlaySection(changes.memory, into.memory);
  // runc: "unlimited memory" asked alone means unlimited memory+swap, or the
  // old memory+swap limit would now be below the memory limit.
  if (changes.memory && changes.memory->limit == -1 && !changes.memory->swap) {
    into.memory->swap = -1;
  }
  OverlaySection(changes.cpu, into.cpu);
  if (changes.pids) into.pids = changes.pids;
  OverlaySection(changes.block_io, into.block_io);
  MergeHugepages(changes.hugepage_limits, into.hugepage_limits);
  OverlaySection(changes.network, into.network);
  for (const auto& [device, limits] : changes.rdma) into.rdma.insert_or_assign(device, limits);
  for (const auto& [file, value] : changes.unified) into.unified.insert_or_assign(file, value);
}

Result<void> UpdateContainer(const std::string& root, const std::string& id,
                             const config::Resources& changes) {
  ASSIGN_OR_RETURN(runtime::StateDir dir, runtime::StateDir::Open(root, id));
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, dir.LoadRecord());
  RETURN_IF_ERROR(
      runtime::CheckTransition(runtime::Verb::kUpdate, runtime::CurrentStatus(record), id));
  ASSIGN_OR_RETURN(config::Spec spec, dir.LoadConfig());
  if (!spec.linux_spec) spec.linux_spec.emplace();
  if (!spec.linux_spec->resources) spec.linux_spec->resources.emplace();
  config::Resources& resources = *spec.linux_spec->resources;
  MergeResources(changes, resources);
  RETURN_IF_ERROR(config::Validate(spec));

  ASSIGN_OR_RETURN(std::optional<runtime::cgroup::Cgroup> cg, runtime::ContainerCgroup(record));
  if (!cg) return Fail(StrCat("container ", Quote(id), " has no cgroup to update"));
  // The device rules were written at create from linux.devices as well;
  // rewriting them from linux.resources alone would lose those (runc's
  // update skips devices for the same reason).
  config::Resources to_apply = resources;
  to_apply.devices.clear();
  RETURN_IF_ERROR(cg->Apply(to_apply));
  return dir.SaveConfig(spec);
}

}  // namespace vigil::lifecycle
