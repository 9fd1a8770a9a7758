// The container lifecycle as a state machine: which verb may act on which
// status, and what the status is now (a supervisor that died without a word
// leaves a stopped container, whatever the record last said).
#pragma once

#include "base/result.h"
#include "config/oci/state.h"
#include "runtime/container/record.h"

namespace vigil::runtime {

using config::ContainerStatus;

// The record's status, corrected by what /proc says about the supervisor.
ContainerStatus CurrentStatus(const ContainerRecord& record);

// kUpdate and kStats need the container's cgroup: created, running or
// paused (runc refuses a stopped container with "not running").
enum class Verb { kStart, kKill, kPause, kResume, kDelete, kExec, kUpdate, kStats };

// Ok when `verb` may act on a container in `status`; otherwise the error
// callers match on (containerd looks for "container not running").
Result<void> CheckTransition(Verb verb, ContainerStatus status, std::string_view id);

}  // namespace vigil::runtime
