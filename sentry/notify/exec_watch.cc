#include "sentry/notify/exec_watch.h"

#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil::sentry {
namespace {

bool IsExit(int code) { return code == CLD_EXITED || code == CLD_KILLED || code == CLD_DUMPED; }

std::optional<FileId> MappedImage(pid_t pid) {
  UniqueFd exe(::open(StrCat("/proc/", pid, "/exe").c_str(), O_PATH | O_CLOEXEC));
  struct stat st {};
  if (!exe || ::fstat(exe.Get(), &st) != 0) return std::nullopt;
  return FileId{.dev = st.st_dev, .ino = st.st_ino};
}

// Whether this process traces `tid` already. Asked only when a seize is
// refused for a thread the watch has seized before (its exec failed): the
// map alone cannot tell, since a thread whose exec replaced a seized
// leader takes the leader's id untraced.
bool TracedByUs(pid_t tid) {
  Result<std::string> status = ReadFile(StrCat("/proc/", tid, "/status"), 4096);
  if (!status) return false;
  constexpr std::string_view kTracer = "\nTracerPid:\t";
  const std::size_t at = status->find(kTracer);
  if (at == std::string::npos) return false;
  return std::atol(status->c_str() + at + kTracer.size()) == ::getpid();
}

}  // namespace

Result<void> ExecWatch::Expect(pid_t tid, Approved approved) {
  if (::ptrace(PTRACE_SEIZE, tid, nullptr, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) != 0) {
    const int error = errno;
    if (error != EPERM || !approved_.contains(tid) || !TracedByUs(tid)) {
      return FailErrno(error, StrCat("ptrace thread ", tid, " to verify its exec"));
    }
  }
  approved_.insert_or_assign(tid, std::move(approved));
  return {};
}

bool ExecWatch::OnChildEvent(const siginfo_t& child) {
  if (IsExit(child.si_code)) {
    approved_.erase(child.si_pid);
    return false;
  }
  if (child.si_code != CLD_TRAPPED) return false;
  // Only seized threads stop for their tracer: si_status is the stop's
  // signal, with the ptrace event in the byte above it.
  const pid_t pid = child.si_pid;
  const int event = child.si_status >> 8;
  const int signal = child.si_status & 0xff;
  if (event == PTRACE_EVENT_EXEC) {
    Verify(pid);
  } else if (event == PTRACE_EVENT_STOP) {
    // A group stop (SIGSTOP and friends): stay stopped, as untraced.
    ::ptrace(PTRACE_LISTEN, pid, nullptr, nullptr);
  } else {
    // A signal on its way to the thread: pass it on.
    ::ptrace(PTRACE_CONT, pid, nullptr, signal);
  }
  return true;
}

void ExecWatch::Verify(pid_t pid) {
  // The thread that exec'd: the event message names it. When it was not
  // the leader it now has the leader's id, and the leader is gone; an
  // approval the leader left (its own exec failed) is not this one's.
  unsigned long former = 0;
  const pid_t execed =
      ::ptrace(PTRACE_GETEVENTMSG, pid, nullptr, &former) == 0 ? static_cast<pid_t>(former) : pid;
  Approved approved{.event = {.tid = pid, .number = SYS_execve}};
  if (auto found = approved_.find(execed); found != approved_.end()) {
    approved = std::move(found->second);
  }
  approved_.erase(execed);
  approved_.erase(pid);
  const std::optional<FileId> mapped = MappedImage(pid);
  if (mapped && approved.image == mapped) {
    ::ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    return;
  }
  Result<std::string> path = ReadLink(StrCat("/proc/", pid, "/exe"));
  // Not a single instruction of it has run.
  ::kill(pid, SIGKILL);
  log::Warning(StrCat("sentry: killed process ", pid, ": its exec mapped ",
                      path ? *path : std::string("an unknown file"),
                      ", not the file the policy approved"));
  if (on_killed_) on_killed_(approved, pid, path ? *path : std::string());
}

}  // namespace vigil::sentry
