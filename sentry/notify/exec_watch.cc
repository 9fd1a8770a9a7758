#include "sentry/notify/exec_watch.h"

#include <sys/ptrace.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "base/file.h"
#include "base/strings.h"
#include "sentry/serve/ptrace_stops.h"

namespace vigil::sentry {
namespace {

// Whether this process traces `tid` already. Asked only when a seize is
// refused for a thread the watch has seized before (its exec failed): the
// approvals alone cannot tell, since a thread whose exec replaced a seized
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
    if (error != EPERM || !approvals_.Has(tid) || !TracedByUs(tid)) {
      return FailErrno(error, StrCat("ptrace thread ", tid, " to verify its exec"));
    }
  }
  approvals_.Approve(tid, std::move(approved));
  return {};
}

bool ExecWatch::OnChildEvent(const siginfo_t& child) {
  if (ptrace_stops::IsExit(child)) {
    approvals_.Forget(child.si_pid);
    return false;
  }
  // Only seized threads stop for their tracer.
  std::optional<ptrace_stops::Stop> stop = ptrace_stops::StopOf(child);
  if (!stop) return false;
  if (stop->event == PTRACE_EVENT_EXEC) {
    if (approvals_.Verify(stop->pid, ptrace_stops::ExecedThread(stop->pid))) {
      ::ptrace(PTRACE_DETACH, stop->pid, nullptr, nullptr);
    }
  } else {
    ptrace_stops::PassOn(*stop);
  }
  return true;
}

}  // namespace vigil::sentry
