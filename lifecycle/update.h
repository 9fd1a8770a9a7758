// `update`: new cgroup limits for a container that is still alive, and the
// rule that folds them into the limits it already has.
#pragma once

#include <string>

#include "base/result.h"
#include "config/oci/resources.h"

namespace vigil::lifecycle {

// Folds `changes` into `into` as runc's update does: every limit `changes`
// sets replaces the one in `into`, what it leaves unset stays. Lists keyed by
// something (hugepage sizes, rdma devices, unified files) merge by key; the
// other lists are replaced when `changes` has any. Device rules are never
// merged: update cannot change them (nor can runc's). An unlimited memory
// limit (-1) without a swap value makes swap unlimited too, as in runc.
void MergeResources(const config::Resources& changes, config::Resources& into);

// Under the container's lock: merges `changes` into the saved config's
// linux.resources, validates the result, writes it to the container's cgroup
// (all of it but the device rules, so knobs that depend on each other, such
// as memory and memory+swap, are written knowing both) and saves the config
// so later verbs see the new limits. The container must be created, running
// or paused; otherwise the error says "container not running". Errors name
// the field ("linux.resources.memory.limit: ...").
Result<void> UpdateContainer(const std::string& root, const std::string& id,
                             const config::Resources& changes);

}  // namespace vigil::lifecycle
