// How the container's process is scheduled: process.scheduler (sched_setattr),
// process.ioPriority (ioprio_set), process.execCPUAffinity, and the execution
// domain of linux.personality.
#pragma once

#include "base/result.h"
#include "config/oci/linux.h"
#include "config/oci/process.h"

namespace vigil::runtime {

// sched_setattr(2) on the calling process; errors name the policy.
Result<void> ApplyScheduler(const config::Scheduler& scheduler);

// ioprio_set(2) on the calling process.
Result<void> ApplyIoPriority(const config::IoPriority& priority);

// personality(2): LINUX32 makes `uname -m` report i686 (flags are none yet).
Result<void> ApplyPersonality(const config::Personality& personality);

// sched_setaffinity(2) to a cpuset list such as "0-3,7".
Result<void> ApplyCpuAffinity(std::string_view cpus);

}  // namespace vigil::runtime
