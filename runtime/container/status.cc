#include "runtime/container/status.h"

#include "base/proc.h"
#include "base/strings.h"
#include "runtime/container/container_cgroup.h"

namespace vigil::runtime {

ContainerStatus CurrentStatus(const ContainerRecord& record) {
  if (!ProcessAlive(record.supervisor_pid, record.supervisor_start)) {
    return ContainerStatus::kStopped;
  }
  // The container ends with its init, as runc tells it: the supervisor may
  // still be recording that (the record, its last audit) for a moment.
  const bool init_started =
      record.status == ContainerStatus::kCreated || record.status == ContainerStatus::kRunning;
  if (init_started && record.init_pid > 0 && !ProcessAlive(record.init_pid, record.init_start)) {
    return ContainerStatus::kStopped;
  }
  // Paused lives in the freezer, not in the record: `pause` does not race
  // the supervisor, the record's only writer.
  if (record.status == ContainerStatus::kRunning) {
    Result<std::optional<cgroup::Cgroup>> cg = ContainerCgroup(record);
    if (cg && *cg) {
      Result<bool> frozen = (*cg)->Frozen();
      if (frozen && *frozen) return ContainerStatus::kPaused;
    }
  }
  return record.status;
}

Result<void> CheckTransition(Verb verb, ContainerStatus status, std::string_view id) {
  using S = ContainerStatus;
  bool ok = false;
  switch (verb) {
    case Verb::kStart:
      ok = status == S::kCreated;
      break;
    case Verb::kKill:
    case Verb::kUpdate:
    case Verb::kStats:
      ok = status == S::kCreated || status == S::kRunning || status == S::kPaused;
      break;
    case Verb::kPause:
      ok = status == S::kRunning;
      break;
    case Verb::kResume:
      ok = status == S::kPaused;
      break;
    case Verb::kDelete:
      ok = status == S::kStopped || status == S::kCreated;
      break;
    case Verb::kExec:
      // As runc: a created container too (its init waits for start in
      // its namespaces); a paused one only with --ignore-paused.
      ok = status == S::kCreated || status == S::kRunning;
      break;
  }
  if (ok) return {};
  std::string_view name = config::NameOf(status);
  switch (verb) {
    case Verb::kStart:
      return Fail(StrCat("cannot start container ", Quote(id), ": it is ", name, ", not created"));
    case Verb::kKill:
    case Verb::kExec:
    case Verb::kUpdate:
    case Verb::kStats:
      return Fail(StrCat("container ", Quote(id), " is ", name, ": container not running"));
    case Verb::kPause:
      return Fail(StrCat("cannot pause container ", Quote(id), ": it is ", name, ", not running"));
    case Verb::kResume:
      return Fail(StrCat("cannot resume container ", Quote(id), ": it is ", name, ", not paused"));
    case Verb::kDelete:
      return Fail(StrCat("cannot delete container ", Quote(id), ": it is ", name,
                         "; stop it first or use --force"));
  }
  return Fail("unreachable");
}

}  // namespace vigil::runtime
