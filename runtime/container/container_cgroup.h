// The recorded cgroup of a container, reopened by the verbs after create.
#pragma once

#include <optional>
#include <string_view>

#include "base/result.h"
#include "config/oci/resources.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/record.h"

namespace vigil::runtime {

// The container's cgroup from the record's paths; nullopt for a record
// without any (created before cgroups, or a create that failed early).
Result<std::optional<cgroup::Cgroup>> ContainerCgroup(const ContainerRecord& record);

// The JSON path of the first limit `resources` sets ("linux.resources.memory",
// ...), or empty when it sets none (device rules are not limits: the
// sentry enforces them too). A user's container that cannot have a cgroup
// fails when its config sets one, as runc's does.
std::string_view FirstLimitSet(const config::Resources& resources);

}  // namespace vigil::runtime
