// The ptrace stops the sentry's tracees report, as waitid(2) delivers them
// to the supervisor (their tracer; no WSTOPPED needed), and what to do with
// the ones the sentry has no business with: let them go on as if nobody
// traced the thread.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <optional>

namespace vigil::sentry::ptrace_stops {

struct Stop {
  pid_t pid = 0;
  int event = 0;   // PTRACE_EVENT_*, or 0 for a signal-delivery stop
  int signal = 0;  // the stop's signal (SIGTRAP for the events)
};

// The stop `child` reports; nullopt for anything but a ptrace stop.
std::optional<Stop> StopOf(const siginfo_t& child);

// Whether `stop` is a syscall entry or exit stop (PTRACE_SYSCALL, with
// PTRACE_O_TRACESYSGOOD).
bool IsSyscallStop(const Stop& stop);

// Whether `child` reports the end of a task (exited or killed).
bool IsExit(const siginfo_t& child);

// Resumes `stop` untouched: a signal-delivery stop delivers its signal; a
// group stop (a PTRACE_EVENT_STOP for SIGSTOP and friends) stays stopped
// as an untraced one would (PTRACE_LISTEN); the initial stop of a newly
// attached child and every other event stop continue.
void PassOn(const Stop& stop);

// At PTRACE_EVENT_EXEC of `pid`: the thread that exec'd (another than the
// leader takes the leader's id, and the event message names it).
pid_t ExecedThread(pid_t pid);

}  // namespace vigil::sentry::ptrace_stops
