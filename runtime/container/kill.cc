#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>

#include "base/proc.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/container/lifecycle.h"
#include "runtime/container/state_dir.h"

namespace vigil::runtime {
namespace {

// The pid namespace inode of `pid`, or 0.
ino_t PidNamespaceOf(pid_t pid) {
  struct stat st {};
  if (::stat(StrCat("/proc/", pid, "/ns/pid").c_str(), &st) != 0) return 0;
  return st.st_ino;
}

// Every process in the init's pid namespace, when the container has one of
// its own (the host's processes share the supervisor's).
std::vector<pid_t> ProcessesOf(const ContainerRecord& record) {
  std::vector<pid_t> pids;
  ino_t ns = PidNamespaceOf(record.init_pid);
  if (ns == 0 || ns == PidNamespaceOf(::getpid())) return {record.init_pid};
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return {record.init_pid};
  while (dirent* entry = ::readdir(proc)) {
    pid_t pid = 0;
    std::string_view name = entry->d_name;
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc()) continue;
    if (PidNamespaceOf(pid) == ns) pids.push_back(pid);
  }
  ::closedir(proc);
  return pids;
}

}  // namespace

Result<void> KillContainer(const std::string& root, const std::string& id, int sig, bool all) {
  ASSIGN_OR_RETURN(StateDir dir, StateDir::Open(root, id));
  ASSIGN_OR_RETURN(ContainerRecord record, dir.LoadRecord());
  RETURN_IF_ERROR(CheckTransition(Verb::kKill, CurrentStatus(record), id));
  // A pidfd checked against the recorded start time cannot hit a process
  // that reused the pid.
  Result<UniqueFd> init = PidfdOpen(record.init_pid);
  if (!init || !ProcessAlive(record.init_pid, record.init_start)) {
    return Fail(StrCat("container ", Quote(id), ": no such process"));
  }
  if (all) {
    for (pid_t pid : ProcessesOf(record)) {
      if (pid != record.init_pid) ::kill(pid, sig);
    }
  }
  Result<void> sent = PidfdSendSignal(init->Get(), sig);
  if (!sent && sent.error().code == ESRCH) {
    return Fail(StrCat("container ", Quote(id), ": no such process"));
  }
  return sent;
}

}  // namespace vigil::runtime
