#include <signal.h>

#include <cerrno>

#include "base/proc.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "lifecycle/lifecycle.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/state_dir.h"

namespace vigil::lifecycle {
namespace {

// Every process of the container: those in its cgroup (and below it).
Result<std::vector<pid_t>> ProcessesOf(const runtime::ContainerRecord& record) {
  ASSIGN_OR_RETURN(std::optional<runtime::cgroup::Cgroup> cg, runtime::ContainerCgroup(record));
  if (!cg) return std::vector<pid_t>{record.init_pid};
  return cg->Processes();
}

// Signals every process of the container except its init.
Result<void> SignalAllButInit(const runtime::ContainerRecord& record, int sig) {
  ASSIGN_OR_RETURN(std::vector<pid_t> pids, ProcessesOf(record));
  for (pid_t pid : pids) {
    if (pid != record.init_pid) ::kill(pid, sig);
  }
  return {};
}

}  // namespace

Result<void> KillContainer(const std::string& root, const std::string& id, int sig, bool all) {
  ASSIGN_OR_RETURN(runtime::StateDir dir, runtime::StateDir::Open(root, id));
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, dir.LoadRecord());
  config::ContainerStatus status = CurrentStatus(record);
  // As runc: --all still reaches what a stopped init left in its cgroup, which
  // a shared or host pid namespace does not end with it (containerd's shim
  // sends this after the init exits).
  if (all && status == config::ContainerStatus::kStopped) return SignalAllButInit(record, sig);
  RETURN_IF_ERROR(runtime::CheckTransition(runtime::Verb::kKill, status, id));
  // A pidfd checked against the recorded start time cannot hit a process
  // that reused the pid.
  Result<UniqueFd> init = PidfdOpen(record.init_pid);
  if (!init || !ProcessAlive(record.init_pid, record.init_start)) {
    return Fail(StrCat("container ", Quote(id), ": no such process"));
  }
  if (all) RETURN_IF_ERROR(SignalAllButInit(record, sig));
  Result<void> sent = PidfdSendSignal(init->Get(), sig);
  if (!sent && sent.error().code == ESRCH) {
    // With --all the init may have exited between the two steps: done.
    if (all) return {};
    return Fail(StrCat("container ", Quote(id), ": no such process"));
  }
  return sent;
}

}  // namespace vigil::lifecycle
