#include "lifecycle/memory_release.h"

#include <unistd.h>

#include <charconv>
#include <string_view>
#include <vector>

#include "base/file.h"
#include "base/proc.h"
#include "base/strings.h"
#include "config/oci/vigil_annotations.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/status.h"
#include "runtime/container/supervisor_control.h"

namespace vigil::lifecycle {
namespace {

constexpr std::string_view kNoteFile = "/memory-release";

std::uint64_t SwappedBy(pid_t pid) {
  Result<std::string> status = ReadFile(StrCat("/proc/", pid, "/status"), 1 << 16);
  return status ? KibFieldBytes(*status, "VmSwap:") : 0;
}

std::optional<runtime::cgroup::MemoryRelease> ReadNote(const std::string& path) {
  Result<std::string> text = ReadFile(path, 256);
  if (!text) return std::nullopt;
  runtime::cgroup::MemoryRelease release;
  const char* end = text->data() + text->size();
  auto [next, error] = std::from_chars(text->data(), end, release.before);
  if (error != std::errc() || next == end) return std::nullopt;
  if (std::from_chars(next + 1, end, release.after).ec != std::errc()) return std::nullopt;
  return release;
}

}  // namespace

Result<bool> WantsMemoryRelease(const runtime::ContainerRecord& record, bool asked) {
  auto it = record.annotations.find(std::string(config::kPauseReleaseMemoryAnnotation));
  if (it == record.annotations.end() || it->second == "false") return asked;
  if (it->second == "true") return true;
  return Fail(StrCat("annotation ", config::kPauseReleaseMemoryAnnotation, ": ", Quote(it->second),
                     " is neither \"true\" nor \"false\""));
}

Result<runtime::cgroup::MemoryRelease> ReleaseMemory(const runtime::StateDir& dir,
                                                     const runtime::cgroup::Cgroup& cg) {
  // The supervisor first gives back its heap's free pages; one that cannot
  // answer (gone, or older than the request) still has them reclaimed.
  (void)runtime::CallSupervisor(dir.ControlSocketPath(), {.verb = runtime::ControlVerb::kTrim});
  ASSIGN_OR_RETURN(runtime::cgroup::MemoryRelease release, cg.ReleaseMemory());
  RETURN_IF_ERROR(WriteFileAtomic(dir.path() + std::string(kNoteFile),
                                  StrCat(release.before, " ", release.after, "\n"), 0644,
                                  /*overwrite=*/true, Durability::kSkipFsync));
  return release;
}

void ForgetMemoryRelease(const runtime::StateDir& dir) {
  (void)::unlink((dir.path() + std::string(kNoteFile)).c_str());
}

std::string StayedResidentNote(std::uint64_t swap_total, std::uint64_t swap_free) {
  if (swap_total == 0) {
    return "no swap on this host: page cache was dropped, anonymous memory stays in RAM";
  }
  // Under a page of room the kernel could not have written much.
  if (swap_free < 4096) return "the host's swap is full: anonymous memory stays in RAM";
  return "";
}

Result<PausedMemory> PausedMemoryOf(const std::string& root,
                                    const runtime::ContainerRecord& record) {
  ASSIGN_OR_RETURN(std::optional<runtime::cgroup::Cgroup> cg, runtime::ContainerCgroup(record));
  if (!cg) return Fail(StrCat("container ", Quote(record.id), " has no cgroup to measure"));
  ASSIGN_OR_RETURN(runtime::cgroup::Stats stats, cg->ReadStats());
  PausedMemory memory;
  if (stats.memory) memory.resident = stats.memory->usage;
  // The supervisor is charged to the container's memory cgroup but is not
  // one of its processes (cgroup.h, AddProcessFor).
  std::vector<pid_t> pids = cg->Processes().value_or(std::vector<pid_t>{});
  if (ProcessAlive(record.supervisor_pid, record.supervisor_start)) {
    pids.push_back(record.supervisor_pid);
  }
  for (pid_t pid : pids) memory.swapped += SwappedBy(pid);
  memory.release = ReadNote(StrCat(root, "/", record.id, kNoteFile));
  if (Result<std::string> meminfo = ReadFile("/proc/meminfo", 1 << 16)) {
    memory.note = StayedResidentNote(KibFieldBytes(*meminfo, "SwapTotal:"),
                                     KibFieldBytes(*meminfo, "SwapFree:"));
  }
  return memory;
}

std::optional<PausedMemory> MemoryIfPaused(const std::string& root,
                                           const runtime::ContainerRecord& record) {
  if (runtime::CurrentStatus(record) != config::ContainerStatus::kPaused) return std::nullopt;
  Result<PausedMemory> memory = PausedMemoryOf(root, record);
  if (!memory) return std::nullopt;
  return std::move(*memory);
}

}  // namespace vigil::lifecycle
