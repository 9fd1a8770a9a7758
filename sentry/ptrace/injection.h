// Syscalls the sentry has a stopped thread make in place of the one it
// stopped at, on the ptrace platform: how a file the sentry opened gets
// into the thread's descriptor table (recvmsg on the descriptor channel),
// and how a close_range over the channel closes everything else.
//
// At a seccomp stop the thread's syscall is replaced (orig_rax and the
// argument registers); the kernel runs the replacement, and at its exit
// stop the next one is started by stepping the thread back onto its
// syscall instruction, or the thread's registers are put back as they were
// and the syscall's result set. The argument registers are restored
// because the syscall ABI preserves them and compiled code relies on it.
// Between two calls the thread passes through user mode, where a signal
// would run its handler with the registers made for the next call: every
// signal is blocked for that step (PTRACE_SETSIGMASK), and a group stop
// met there resumes into the sequence (ResumeAfterStop).
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>

namespace vigil::sentry {

struct InjectedCall {
  long number = -1;
  std::array<std::uint64_t, 3> args{};  // rdi, rsi, rdx
};

class Injection {
 public:
  // What the workload's syscall returns, given the last call's result
  // (a negative errno stops the sequence early).
  using Finish = std::function<std::int64_t(std::int64_t last_result)>;

  Injection(std::deque<InjectedCall> calls, Finish finish)
      : calls_(std::move(calls)), finish_(std::move(finish)) {}

  // At the seccomp stop of `tid`: replaces its syscall with the first call
  // and resumes it to that call's exit stop. False if the thread is gone.
  bool Start(pid_t tid);

  // At a syscall stop of `tid`: true once the sequence is over and the
  // thread runs on with the workload's result.
  bool OnSyscallStop(pid_t tid);

  // Any other stop of `tid` in the sequence (a group stop: SIGSTOP cannot be
  // blocked): resumed so that its next stop is still the call's.
  static void ResumeAfterStop(pid_t tid, int event, int signal);

 private:
  bool Resume(pid_t tid);
  // The thread's signal mask, kept while every signal is blocked.
  bool BlockSignals(pid_t tid);
  void RestoreSignals(pid_t tid);

  std::deque<InjectedCall> calls_;
  Finish finish_;
  user_regs_struct saved_{};
  // After stepping back for the next call the thread first reports that
  // call's entry, then its exit.
  bool expect_entry_ = false;
  std::optional<std::uint64_t> saved_mask_;
};

}  // namespace vigil::sentry
