// Internal to runtime/cgroup: one function per controller family, each in
// its own file, applying its part of linux.resources. A part the config
// leaves unset is a no-op and needs no controller; a knob that is set needs
// its controller, and an absent one is an error naming the field.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "config/oci/resources.h"
#include "runtime/cgroup/knob.h"
#include "runtime/cgroup/stats.h"

namespace vigil::runtime::cgroup {

// cpuset.cc: linux.resources.cpu.cpus/.mems.
Result<void> ApplyCpuset(const Knobs& knobs, const config::Resources& r);
// devices.cc: linux.resources.devices (v1 devices.allow/deny).
Result<void> ApplyDevices(const Knobs& knobs, const config::Resources& r);
// memory.cc: linux.resources.memory.
Result<void> ApplyMemory(const Knobs& knobs, const config::Resources& r);
// cpu.cc: linux.resources.cpu except cpus/mems.
Result<void> ApplyCpu(const Knobs& knobs, const config::Resources& r);
// pids.cc: linux.resources.pids.
Result<void> ApplyPids(const Knobs& knobs, const config::Resources& r);
// blkio.cc: linux.resources.blockIO (v1 blkio, v2 io).
Result<void> ApplyBlockIo(const Knobs& knobs, const config::Resources& r);
// hugetlb.cc: linux.resources.hugepageLimits.
Result<void> ApplyHugetlb(const Knobs& knobs, const config::Resources& r);
// network.cc: linux.resources.network (net_cls, net_prio).
Result<void> ApplyNetwork(const Knobs& knobs, const config::Resources& r);
// rdma.cc: linux.resources.rdma.
Result<void> ApplyRdma(const Knobs& knobs, const config::Resources& r);
// unified.cc: linux.resources.unified (cgroup2 files, written last so they
// override the typed fields).
Result<void> ApplyUnified(const Knobs& knobs, const config::Resources& r);

// cpu.cc: runc's cpu.shares -> cgroup2 cpu.weight mapping, [2, 262144] onto
// [1, 10000]: 1 + ((shares - 2) * 9999) / 262142 (shares clamped first;
// 0 stays 0, "unset").
std::uint64_t CpuSharesToWeight(std::uint64_t shares);

// blkio.cc: runc's blkio.weight -> io.weight mapping, [10, 1000] onto
// [1, 10000]: 1 + (weight - 10) * 9999 / 990 (0 stays 0, "unset").
std::uint64_t BlkioWeightToIoWeight(std::uint64_t weight);

// cpuset.cc: a new v1 cpuset cgroup starts with empty cpuset.cpus/mems, and
// no task may join it until both are set: fills each directory from below
// `mount_point` down to `dir` that has them empty with its parent's values.
Result<void> PopulateCpuset(const Fs& fs, const std::string& mount_point, const std::string& dir);

// freezer.cc: v1 freezer.state when a v1 freezer hierarchy exists, else
// cgroup2's cgroup.freeze.
Result<void> FreezeCgroup(const Knobs& knobs);
Result<void> ThawCgroup(const Knobs& knobs);
Result<bool> CgroupFrozen(const Knobs& knobs);

// memory.cc: the OOM killer's kills in the cgroup so far.
Result<std::uint64_t> OomKillCount(const Knobs& knobs);

// pids.cc: the forks pids.max has refused in the cgroup so far.
Result<std::uint64_t> PidsLimitHitCount(const Knobs& knobs);

// stats.cc
Result<Stats> ReadCgroupStats(const Knobs& knobs);

// reclaim.cc: v2 memory.reclaim, v1 a limit squeeze (swappiness 100).
Result<MemoryRelease> ReleaseCgroupMemory(const Knobs& knobs);

}  // namespace vigil::runtime::cgroup
