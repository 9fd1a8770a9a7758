// Moving a process into a cgroup (a write to cgroup.procs) takes the
// kernel's cgroup_threadgroup_rwsem for writing, and that waits for an RCU
// grace period unless another such write ended less than a grace period
// before (percpu_down_write -> rcu_sync_enter). A grace period is 6-20 ms on
// a small VM: half of a `run` of /bin/true. The host can lift it (cgroup
// mount option favordynmods); a runtime can only overlap it with its other
// work, which is what AttachPrimer does: as soon as a verb starts, one
// thread moves this process into the cgroup it is already in (a no-op), so
// the grace period passes while the verb parses, compiles filters and
// clones, and the container's own join later takes the lock at once.
#pragma once

#include <thread>

namespace vigil::runtime::cgroup {

class AttachPrimer {
 public:
  // Starts the write on a thread of its own. Nothing depends on it: when it
  // fails (no cgroupfs, no permission) the join is only slower. The thread
  // opens, writes and closes, so a fork meanwhile (the supervisor's) leaves
  // the child nothing half-done.
  static AttachPrimer Start();

  AttachPrimer(AttachPrimer&&) = default;
  AttachPrimer& operator=(AttachPrimer&&) = delete;
  ~AttachPrimer();  // waits for the write to end

 private:
  AttachPrimer() = default;
  std::thread thread_;
};

}  // namespace vigil::runtime::cgroup
