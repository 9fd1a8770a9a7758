#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "base/log.h"
#include "base/proc.h"
#include "base/strings.h"
#include "lifecycle/lifecycle.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/remove.h"
#include "runtime/container/state_dir.h"
#include "runtime/process/hooks.h"

namespace vigil::lifecycle {
namespace {

// Waits up to `tenths` tenths of a second for a process (not our child) to
// be gone.
bool WaitGone(pid_t pid, std::uint64_t start, int tenths) {
  for (int i = 0; i < tenths; ++i) {
    if (!ProcessAlive(pid, start)) return true;
    ::usleep(100'000);
  }
  return !ProcessAlive(pid, start);
}

}  // namespace

Result<void> DeleteContainer(const std::string& root, const std::string& id, bool force) {
  Result<runtime::StateDir> opened = runtime::StateDir::Open(root, id);
  if (!opened) {
    // As runc: `delete --force` of a container that does not exist succeeds
    // (containerd's shim runs it after every delete, to be sure).
    if (force && runtime::ValidateId(id) && ::access(StrCat(root, "/", id).c_str(), F_OK) != 0 &&
        errno == ENOENT) {
      return {};
    }
    return tl::unexpected(std::move(opened).error());
  }
  runtime::StateDir dir = std::move(*opened);
  Result<runtime::ContainerRecord> record = dir.LoadRecord();
  if (!record) {
    // A record nobody can read is debris from a crash: --force clears it.
    if (!force)
      return tl::unexpected(std::move(record).error().Wrap(StrCat("container ", Quote(id))));
    return dir.Remove();
  }
  config::ContainerStatus status = CurrentStatus(*record);
  if (!force) RETURN_IF_ERROR(runtime::CheckTransition(runtime::Verb::kDelete, status, id));
  ASSIGN_OR_RETURN(std::optional<runtime::cgroup::Cgroup> cg, runtime::ContainerCgroup(*record));
  if (status != config::ContainerStatus::kStopped) {
    // Killing the init ends the container (its pid namespace with it) and
    // then the supervisor, which mirrors the init's death. A paused
    // container must be thawed for the kill to take effect.
    if (ProcessAlive(record->init_pid, record->init_start)) ::kill(record->init_pid, SIGKILL);
    if (cg) (void)cg->Thaw();
  }
  // A container whose init just died reads as stopped while its supervisor
  // is still marking it so (the record, the audit log): the state
  // directory is the supervisor's until it exits, or it would write into a
  // directory being removed and leave it behind.
  if (!WaitGone(record->supervisor_pid, record->supervisor_start, 50)) {
    ::kill(record->supervisor_pid, SIGKILL);
    WaitGone(record->supervisor_pid, record->supervisor_start, 50);
  }
  Result<config::Spec> spec = dir.LoadConfig();
  RETURN_IF_ERROR(runtime::RemoveCgroupAndState(dir, *record, cg, spec));
  // After the container is gone, before delete returns; a failure is a
  // warning, as the spec says.
  if (spec) {
    Result<void> hooks =
        runtime::RunHooks("poststop", runtime::HooksOf(*spec, "poststop"),
                          runtime::HookState(*record, config::ContainerStatus::kStopped));
    if (!hooks) log::Warning(hooks.error().message);
  }
  return {};
}

}  // namespace vigil::lifecycle
