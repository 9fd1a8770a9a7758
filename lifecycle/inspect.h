// Looking at a container without changing it: its processes (`ps`) and its
// cgroup's usage (`events`). These read the record without taking the lock,
// as `state` does, so they never wait behind a slow verb.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/cgroup/stats.h"

namespace vigil::lifecycle {

// The host pids of the processes in the container's cgroup (and cgroups
// nested in it), in cgroup.procs order. A stopped container whose cgroup is
// gone or empty has none; that is not an error (runc prints an empty list).
Result<std::vector<pid_t>> ContainerProcesses(const std::string& root, const std::string& id);

// The usage of the container's cgroup. A stopped container is an error
// saying "container not running", as for runc's `events`.
Result<runtime::cgroup::Stats> ContainerStats(const std::string& root, const std::string& id);

// What `events` reports as it happens.
struct EventSinks {
  std::function<void(const runtime::cgroup::Stats&)> stats;
  std::function<void()> oom;  // the OOM killer killed in the container's cgroup
};

// Calls `sinks.stats` with the container's usage every `interval`, the
// first time one interval from now (runc's ticker), and `sinks.oom` when
// the OOM killer has killed in the container since the last look (at each
// tick and at the end), until the container stops; then returns. It
// notices the stop at once (a pidfd on the supervisor), not at the next
// tick. A failed read is logged and skipped, as runc does. Fails as
// ContainerStats does when the container is stopped to begin with.
Result<void> WatchContainerEvents(const std::string& root, const std::string& id,
                                  std::chrono::nanoseconds interval, const EventSinks& sinks);

}  // namespace vigil::lifecycle
