// Pushing a frozen container's memory out of RAM (pause --release-memory)
// with the memory controller's own reclaim, so that the kernel picks the
// pages as it would under pressure: page cache dropped, anonymous memory
// (and tmpfs) written to swap or zswap where the host has any.
//   v2: memory.reclaim, asked for everything the cgroup holds; the kernel
//       answers EAGAIN when it reclaimed less, which is the usual case.
//   v1: no such file. The limit is squeezed instead: a memory.limit_in_bytes
//       below the usage makes the kernel reclaim until the usage fits or a
//       pass frees nothing (then EBUSY, the limit unchanged), with
//       memory.swappiness at 100 for the while so that anonymous pages go
//       as readily as cache. The old limit and swappiness are put back
//       whatever happened.
#include <cerrno>

#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {
namespace {

constexpr std::string_view kWhat = "release the container's memory";
// The squeeze's target: one page. The kernel only sets a limit once the
// usage is under it, which the supervisor's own pages never allow, so in
// practice the write reclaims all it can and fails with EBUSY.
constexpr std::string_view kSqueezedLimit = "4096";

Result<void> ReclaimV2(const Knobs& knobs, const Placement& p, std::uint64_t usage) {
  Result<void> reclaimed = knobs.Write(p, "memory.reclaim", StrCat(usage), kWhat);
  if (!reclaimed && reclaimed.error().code != EAGAIN) return reclaimed;
  return {};
}

Result<void> SqueezeV1(const Knobs& knobs, const Placement& p) {
  ASSIGN_OR_RETURN(std::string limit, knobs.Read(p, "memory.limit_in_bytes"));
  ASSIGN_OR_RETURN(std::string swappiness, knobs.Read(p, "memory.swappiness"));
  RETURN_IF_ERROR(knobs.Write(p, "memory.swappiness", "100", kWhat));
  Result<void> squeezed = knobs.Write(p, "memory.limit_in_bytes", kSqueezedLimit, kWhat);
  // Put back even after EBUSY: a kernel that set the limit part way would
  // leave the container starved.
  Result<void> limit_back = knobs.Write(p, "memory.limit_in_bytes", limit, kWhat);
  Result<void> swappiness_back = knobs.Write(p, "memory.swappiness", swappiness, kWhat);
  if (!squeezed && squeezed.error().code != EBUSY) return squeezed;
  if (!limit_back) return limit_back;
  return swappiness_back;
}

}  // namespace

Result<MemoryRelease> ReleaseCgroupMemory(const Knobs& knobs) {
  ASSIGN_OR_RETURN(const Placement* p, knobs.Require("memory", kWhat));
  const std::string_view usage_file = p->hierarchy.v2 ? "memory.current" : "memory.usage_in_bytes";
  MemoryRelease release;
  ASSIGN_OR_RETURN(release.before, knobs.ReadNumber(*p, usage_file));
  if (p->hierarchy.v2) {
    RETURN_IF_ERROR(ReclaimV2(knobs, *p, release.before));
  } else {
    RETURN_IF_ERROR(SqueezeV1(knobs, *p));
  }
  ASSIGN_OR_RETURN(release.after, knobs.ReadNumber(*p, usage_file));
  return release;
}

}  // namespace vigil::runtime::cgroup
