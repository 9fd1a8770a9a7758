// /proc/meminfo, /proc/cpuinfo and /proc/stat as a container should see
// them (what LXCFS does with FUSE): the host's text with the memory figures
// of the container's cgroup and only the CPUs it may use. The procfs files
// themselves are not namespaced, so tools (free, top, Node's os.cpus())
// would otherwise size themselves to the whole host.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vigil::sentry {

struct MemoryView {
  std::uint64_t limit = 0;  // bytes
  std::uint64_t usage = 0;  // bytes charged, page cache included
  std::uint64_t cache = 0;  // page cache: reclaimable
};

// meminfo with MemTotal, MemFree, MemAvailable, Buffers, Cached and swap
// rewritten for `memory` (host figures kept when the container has no
// limit: then the host's memory is what it may use).
std::string MeminfoView(std::string_view host, const std::optional<MemoryView>& memory);

// The CPUs a container may use: those in its affinity mask, at most
// `limit` of them (its CFS quota rounded up; 0: no quota).
struct CpuView {
  std::uint64_t allowed_mask = 0;  // bit N: host CPU N (CPUs past 63 are not shown)
  unsigned int limit = 0;
};

// The processor blocks of the visible CPUs, numbered from 0.
std::string CpuinfoView(std::string_view host, const CpuView& cpus);

// The per-CPU lines of the visible CPUs, numbered from 0, and the "cpu"
// line as their sum; the rest as the host's.
std::string StatView(std::string_view host, const CpuView& cpus);

// Which view, if any, a path in the container is.
enum class ProcView { kNone, kMeminfo, kCpuinfo, kStat };
ProcView ProcViewOf(std::string_view resolved_path);

}  // namespace vigil::sentry
