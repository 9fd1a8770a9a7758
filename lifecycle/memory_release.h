// pause --release-memory: after the freeze, the kernel pushes the
// container's memory (its processes' and its supervisor's, both charged to
// its memory cgroup) out to swap, and `state` says what stayed in RAM.
//
// What the release freed is kept beside the record (ROOT/ID/memory-release,
// two numbers) rather than in it: the supervisor writes the record too, and
// a paused container's release must not race its status. resume removes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/record.h"
#include "runtime/container/state_dir.h"

namespace vigil::lifecycle {

// Whether a pause releases memory: asked by the flag (pause's or the global
// one, for Docker's runtimeArgs), or by the annotation set to "true". An
// annotation with another value than "true" or "false" is an error naming it.
Result<bool> WantsMemoryRelease(const runtime::ContainerRecord& record, bool asked);

// Releases the frozen container's memory and notes what it freed.
Result<runtime::cgroup::MemoryRelease> ReleaseMemory(const runtime::StateDir& dir,
                                                     const runtime::cgroup::Cgroup& cg);
// Forgets the note (resume).
void ForgetMemoryRelease(const runtime::StateDir& dir);

// A paused container's memory as `state` shows it.
struct PausedMemory {
  std::uint64_t resident = 0;  // charged to its cgroup: pages in RAM, page cache included
  std::uint64_t swapped = 0;   // its processes' and its supervisor's pages in swap
  std::optional<runtime::cgroup::MemoryRelease> release;  // when pause released memory
  std::string note;  // why memory stayed resident, when the host says so (no swap)
};
Result<PausedMemory> PausedMemoryOf(const std::string& root,
                                    const runtime::ContainerRecord& record);
// The same for a container that is paused now; none for one that is not,
// or whose cgroup cannot be read (state and events print without it).
std::optional<PausedMemory> MemoryIfPaused(const std::string& root,
                                           const runtime::ContainerRecord& record);

// The note for a host with `swap_total` and `swap_free` bytes of swap
// (/proc/meminfo): empty when swap had room.
std::string StayedResidentNote(std::uint64_t swap_total, std::uint64_t swap_free);

}  // namespace vigil::lifecycle
