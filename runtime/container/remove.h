// Removing what a stopped container leaves on the host: its cgroup and its
// state directory. `delete` does it (then runs the poststop hooks), and so
// does a supervisor whose foreground client is gone (supervisor/).
#pragma once

#include <optional>
#include <string>

#include "base/result.h"
#include "config/oci/spec.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/record.h"
#include "runtime/container/state_dir.h"

namespace vigil::runtime {

// Unmounts the scratch tmpfs `record` placed on the host
// (engine_scratch.h), removes `cg` (if any), then `dir`. Processes that outlived the init are
// killed first when the container shares a pid namespace (they were the
// container's); with a pid namespace of its own everything of the
// container died with the init, so what is left was in a non-empty
// cgroupsPath before create: those stay, and so does their cgroup, with a
// warning (as runc 1.1). `spec`: the saved config, if it could be read.
Result<void> RemoveCgroupAndState(StateDir& dir, const ContainerRecord& record,
                                  const std::optional<cgroup::Cgroup>& cg,
                                  const Result<config::Spec>& spec);

// RemoveCgroupAndState for container `id` under `root`, from its record.
// Its supervisor must be done with it: nothing checks the status.
Result<void> RemoveStoppedContainer(const std::string& root, const std::string& id);

}  // namespace vigil::runtime
