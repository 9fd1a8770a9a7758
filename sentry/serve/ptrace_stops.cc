#include "sentry/serve/ptrace_stops.h"

#include <sys/ptrace.h>

namespace vigil::sentry::ptrace_stops {

std::optional<Stop> StopOf(const siginfo_t& child) {
  if (child.si_code != CLD_TRAPPED) return std::nullopt;
  // si_status is the stop's signal, with the ptrace event in the byte above.
  return Stop{.pid = child.si_pid, .event = child.si_status >> 8, .signal = child.si_status & 0xff};
}

bool IsSyscallStop(const Stop& stop) { return stop.event == 0 && stop.signal == (SIGTRAP | 0x80); }

bool IsExit(const siginfo_t& child) {
  return child.si_code == CLD_EXITED || child.si_code == CLD_KILLED || child.si_code == CLD_DUMPED;
}

void PassOn(const Stop& stop) {
  if (stop.event == PTRACE_EVENT_STOP && stop.signal != SIGTRAP) {
    ::ptrace(PTRACE_LISTEN, stop.pid, nullptr, nullptr);
  } else if (stop.event == 0) {
    ::ptrace(PTRACE_CONT, stop.pid, nullptr, stop.signal);
  } else {
    ::ptrace(PTRACE_CONT, stop.pid, nullptr, 0);
  }
}

pid_t ExecedThread(pid_t pid) {
  unsigned long former = 0;
  if (::ptrace(PTRACE_GETEVENTMSG, pid, nullptr, &former) != 0) return pid;
  return static_cast<pid_t>(former);
}

}  // namespace vigil::sentry::ptrace_stops
