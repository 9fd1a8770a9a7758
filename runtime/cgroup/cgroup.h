// The container's cgroup: one directory per host hierarchy (each v1
// controller's mount, name=systemd, and the cgroup2 mount), created, limited,
// joined, frozen, measured and removed together. Works on v1, v2 and hybrid
// hosts (v1 controllers plus a cgroup2 mount holding only some, as here):
// each linux.resources knob goes to the hierarchy that holds its controller.
//
// Typical use:
//   create:   hierarchies = DiscoverHierarchies();
//             path = ResolveCgroupPath(linux.cgroupsPath, id, systemd_cgroup);
//             cg = Cgroup::Create(hierarchies, path);   // undo: cg.Destroy()
//             cg.Apply(resources with devices = DeviceRulesFor(...));
//             cg.AddProcess(init_pid);                  // before it execs
//             record cg.Paths() in the state
//   later:    Cgroup::FromPaths(DiscoverHierarchies(), recorded paths)
//             (or Open with the same path); Freeze/Thaw/Frozen (pause,
//             resume, state), Processes (kill --all), ReadStats (events),
//             Apply (update), Destroy (delete, after the processes are gone).
#pragma once

#include <sys/types.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/oci/resources.h"
#include "runtime/cgroup/fs.h"
#include "runtime/cgroup/hierarchy.h"
#include "runtime/cgroup/stats.h"

namespace vigil::runtime::cgroup {

class Cgroup {
 public:
  // Makes `path` (from ResolveCgroupPath) in every hierarchy, mkdir -p: an
  // absolute path below each mount point, a relative one below the calling
  // process's own cgroup there. Then, on cgroup2, enables in each ancestor's
  // cgroup.subtree_control every controller its cgroup.controllers offers,
  // where the kernel allows it (an ancestor holding processes refuses); on
  // v1 cpuset, fills empty cpuset.cpus/mems from the parent. Warns if the
  // cgroup already holds processes (another container's) and goes on, as
  // runc 1.1 does. On failure removes the directories it made. Directories
  // above the container's own (e.g. /vigil) are shared and are never
  // removed.
  static Result<Cgroup> Create(const std::vector<Hierarchy>& hierarchies, const std::string& path,
                               const Fs& fs = Fs::Real());

  // The cgroup at `path` (as given to Create), without touching the
  // filesystem. A relative path resolves against the calling process's own
  // cgroups, so later verbs should prefer FromPaths.
  static Cgroup Open(const std::vector<Hierarchy>& hierarchies, const std::string& path,
                     const Fs& fs = Fs::Real());

  // The cgroup whose directories are `dirs` (a former Paths()), each matched
  // to the hierarchy mounted above it; fails for a directory under no
  // hierarchy's mount point.
  static Result<Cgroup> FromPaths(const std::vector<Hierarchy>& hierarchies,
                                  const std::vector<std::string>& dirs, const Fs& fs = Fs::Real());

  // Moves `pid` (a whole process) into the cgroup in every hierarchy.
  [[nodiscard]] Result<void> AddProcess(pid_t pid) const;

  // Moves `pid` into the cgroup only in the v1 hierarchies that hold one
  // of `controllers` ("memory", "cpu", ...), and back out of them to the
  // cgroups the hierarchies were discovered in (Hierarchy::own_path: the
  // caller's). For a process that should be charged for what it uses
  // without being one of the container's processes: outside the freezer,
  // pids and devices hierarchies, Processes() does not list it and Freeze
  // does not stop it. cgroup2 hierarchies are left alone (one membership
  // there would carry all of those).
  [[nodiscard]] Result<void> AddProcessFor(pid_t pid,
                                           std::span<const std::string_view> controllers) const;
  [[nodiscard]] Result<void> RemoveProcessFor(pid_t pid,
                                              std::span<const std::string_view> controllers) const;
  // Moves `pid` into `sub`, an existing cgroup beneath this one (a
  // relative path without ".."), in the hierarchies that hold one of
  // `controllers`, or in every hierarchy when `controllers` is empty: what
  // runc's `exec --cgroup [CONTROLLER[,...]:]SUB` does.
  [[nodiscard]] Result<void> AddProcessBeneath(pid_t pid, std::string_view sub,
                                               std::span<const std::string> controllers) const;

  // The cgroup.procs files RemoveProcessFor writes to: where a process
  // AddProcessFor moved came from, for what it starts that must not be
  // charged to the container (the OCI hooks).
  std::vector<std::string> HomesFor(std::span<const std::string_view> controllers) const;

  // Writes linux.resources, each knob to the hierarchy that holds its
  // controller (order: cpuset, devices, memory, cpu, pids, blockIO,
  // hugepageLimits, network, rdma, unified). Unset fields are left alone.
  // Errors name the field and, for a failed write, the file:
  //   "linux.resources.memory.limit: write /sys/fs/cgroup/memory/vigil/x/
  //    memory.limit_in_bytes: Device or resource busy (...)"
  // A set field whose controller the host lacks is an error naming both;
  // nothing asked for is skipped silently. Exceptions, documented in each
  // controller's file: memory.kernel (deprecated; ignored), memory.kernelTCP
  // on v2 (counted in memory.max), device rules without a v1 devices
  // hierarchy (device_rules.h, devices.cc). Not transactional: on error,
  // earlier knobs stay written.
  [[nodiscard]] Result<void> Apply(const config::Resources& resources) const;

  // The processes in the cgroup and in cgroups nested below it, from one
  // hierarchy (v1 pids/devices/freezer/memory if mounted, else cgroup2).
  [[nodiscard]] Result<std::vector<pid_t>> Processes() const;

  // Freezes every process (v1 freezer.state, waiting until FROZEN; v2
  // cgroup.freeze, waiting for cgroup.events "frozen 1"). If the freeze
  // does not settle the cgroup is thawed again and an error returned.
  [[nodiscard]] Result<void> Freeze() const;
  [[nodiscard]] Result<void> Thaw() const;
  // True when frozen by Freeze (not merely because an ancestor is frozen,
  // and not while still freezing).
  [[nodiscard]] Result<bool> Frozen() const;

  // How many processes the kernel's OOM killer has killed in the cgroup
  // (v1 memory.oom_control's oom_kill, v2 memory.events').
  [[nodiscard]] Result<std::uint64_t> OomKills() const;
  // How many forks its pids limit has refused (pids.events' max).
  [[nodiscard]] Result<std::uint64_t> PidsLimitHits() const;

  // Memory, pids and CPU usage; sections for absent controllers are empty.
  [[nodiscard]] Result<Stats> ReadStats() const;

  // Has the kernel reclaim all it can of the cgroup's memory, as under
  // pressure (reclaim.cc): for a frozen container (pause
  // --release-memory). Errors name the file; the limits are as before.
  [[nodiscard]] Result<MemoryRelease> ReleaseMemory() const;

  // Removes the cgroup (and any cgroups nested in it) from every hierarchy,
  // retrying rmdir briefly while the kernel reports EBUSY (exiting tasks).
  // Already gone is success. Does not kill: processes left in it make it
  // fail with EBUSY. Tries every hierarchy; returns the first error.
  [[nodiscard]] Result<void> Destroy() const;

  // The cgroup's directory in each hierarchy, for the state record.
  [[nodiscard]] std::vector<std::string> Paths() const;

  // The same with each directory's hierarchy.
  [[nodiscard]] const std::vector<Placement>& placements() const { return placements_; }

 private:
  Cgroup(std::vector<Placement> placements, const Fs& fs)
      : placements_(std::move(placements)), fs_(&fs) {}

  std::vector<Placement> placements_;
  const Fs* fs_;
};

}  // namespace vigil::runtime::cgroup
