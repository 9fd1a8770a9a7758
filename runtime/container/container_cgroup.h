// The recorded cgroup of a container, reopened by the verbs after create.
#pragma once

#include <optional>

#include "base/result.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/record.h"

namespace vigil::runtime {

// The container's cgroup from the record's paths; nullopt for a record
// without any (created before cgroups, or a create that failed early).
Result<std::optional<cgroup::Cgroup>> ContainerCgroup(const ContainerRecord& record);

}  // namespace vigil::runtime
