// The lifecycle operations after `create` (create.h), one file each.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"
#include "runtime/container/record.h"
#include "runtime/container/status.h"

namespace vigil::lifecycle {

// start.cc: releases a created container's init to exec its program.
Result<void> StartContainer(const std::string& root, const std::string& id);

// kill.cc: sends `sig` to the init, or with `all` to every process of the
// container.
Result<void> KillContainer(const std::string& root, const std::string& id, int sig, bool all);

// pause.cc: freezes every process of a running container, and thaws them.
// With `release_memory` (or the container's annotation, memory_release.h)
// the frozen container's memory is then pushed out to swap.
Result<void> PauseContainer(const std::string& root, const std::string& id,
                            bool release_memory = false);
Result<void> ResumeContainer(const std::string& root, const std::string& id);

// delete.cc: removes a stopped (or created) container; with `force` also a
// running one, killing it first.
Result<void> DeleteContainer(const std::string& root, const std::string& id, bool force);

// The record with its current status, for `state` and `list`.
struct ContainerView {
  runtime::ContainerRecord record;
  config::ContainerStatus status;
  pid_t pid;  // the supervisor's while it lives, else 0
};
Result<ContainerView> ViewContainer(const std::string& root, const std::string& id);

}  // namespace vigil::lifecycle
