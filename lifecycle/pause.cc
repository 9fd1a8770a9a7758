#include "base/log.h"
#include "base/strings.h"
#include "lifecycle/lifecycle.h"
#include "lifecycle/memory_release.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/supervisor_control.h"

namespace vigil::lifecycle {
namespace {

Result<runtime::cgroup::Cgroup> FreezerOf(const runtime::StateDir& dir,
                                          const runtime::ContainerRecord& record,
                                          runtime::Verb verb) {
  RETURN_IF_ERROR(runtime::CheckTransition(verb, runtime::CurrentStatus(record), dir.id()));
  ASSIGN_OR_RETURN(std::optional<runtime::cgroup::Cgroup> cg, runtime::ContainerCgroup(record));
  if (!cg) return Fail(StrCat("container ", Quote(dir.id()), " has no cgroup to freeze"));
  return std::move(*cg);
}

// Tells the supervisor of a container with a timeout that its clock stops
// (`paused`) or goes on (`resumed`): the timeout counts the time the
// container runs. One that cannot be told keeps counting, and says so.
void TellTimeoutClock(const runtime::StateDir& dir, const runtime::ContainerRecord& record,
                      runtime::ControlVerb verb) {
  if (record.timeout_ms == 0) return;
  if (Result<void> told = runtime::CallSupervisor(dir.ControlSocketPath(), {.verb = verb}); !told) {
    log::Warning(StrCat("container ", Quote(dir.id()),
                        ": its timeout keeps counting: ", told.error().message));
  }
}

}  // namespace

Result<void> PauseContainer(const std::string& root, const std::string& id, bool release_memory) {
  ASSIGN_OR_RETURN(runtime::StateDir dir, runtime::StateDir::Open(root, id));
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, dir.LoadRecord());
  ASSIGN_OR_RETURN(bool release, WantsMemoryRelease(record, release_memory));
  ASSIGN_OR_RETURN(runtime::cgroup::Cgroup cg, FreezerOf(dir, record, runtime::Verb::kPause));
  RETURN_IF_ERROR(cg.Freeze());
  TellTimeoutClock(dir, record, runtime::ControlVerb::kPaused);
  if (!release) return {};
  // A pause that was asked to release memory and could not is undone: the
  // caller sees the container as it was, and the error.
  if (Result<runtime::cgroup::MemoryRelease> released = ReleaseMemory(dir, cg); !released) {
    (void)cg.Thaw();
    TellTimeoutClock(dir, record, runtime::ControlVerb::kResumed);
    return tl::unexpected(released.error());
  }
  return {};
}

Result<void> ResumeContainer(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(runtime::StateDir dir, runtime::StateDir::Open(root, id));
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, dir.LoadRecord());
  ASSIGN_OR_RETURN(runtime::cgroup::Cgroup cg, FreezerOf(dir, record, runtime::Verb::kResume));
  RETURN_IF_ERROR(cg.Thaw());
  TellTimeoutClock(dir, record, runtime::ControlVerb::kResumed);
  ForgetMemoryRelease(dir);
  return {};
}

}  // namespace vigil::lifecycle
