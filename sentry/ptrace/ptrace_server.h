// The ptrace backend (--platform=ptrace): for kernels without seccomp user
// notification, and as a reference for the notification backend. The
// sentry's filter answers SECCOMP_RET_TRACE where it would notify, and the
// supervisor traces every process of the container: it seizes each one
// before it loads the filter (with PTRACE_O_TRACECLONE, TRACEFORK and
// TRACEVFORK everything they start is traced from birth, and EXITKILL ends
// them all with the supervisor), so a mediated syscall always stops for
// it. Without a tracer the kernel fails such a syscall with ENOSYS: fail
// closed.
//
// At a seccomp stop the thread's registers are the event; the Mediator
// decides as for a notification, and the verdict is applied to the
// registers: an answer skips the syscall (orig_rax = -1) and sets rax, a
// CONTINUE lets the kernel run it. A file the sentry opened for the thread
// goes through the process's descriptor channel (descriptor_channel.h),
// which the calls that could close it do not reach (channel_guard.h).
// Execs are verified at PTRACE_EVENT_EXEC like the other backend's
// (ExecApprovals).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>

#include "base/result.h"
#include "sentry/core/sandbox.h"
#include "sentry/loop/event_loop.h"
#include "sentry/ptrace/descriptor_channel.h"
#include "sentry/ptrace/injection.h"
#include "sentry/serve/backend.h"
#include "sentry/serve/exec_approvals.h"
#include "sentry/serve/mediator.h"

namespace vigil::sentry {

class PtraceServer final : public Backend {
 public:
  PtraceServer(EventLoop& loop, const Sandbox& sandbox, Mediator::Observer observer);
  PtraceServer(const PtraceServer&) = delete;
  PtraceServer& operator=(const PtraceServer&) = delete;

  // Seizes process `pid`, which waits to load the filter (single-threaded,
  // as the init and an exec'd process are then). `channel` is the sentry's
  // end of its descriptor channel; without one, files opened for it fail
  // with ENOSYS.
  Result<void> Adopt(pid_t pid, UniqueFd channel) override;
  bool OnChildEvent(const siginfo_t& child) override;
  void AssumePersonalityMayDiffer() override { mediator_.AssumePersonalityMayDiffer(); }

  // Threads held in a seccomp stop while their syscall is decided, and
  // threads running syscalls the sentry injected.
  std::size_t held() const { return held_.size(); }
  std::size_t injecting() const { return injections_.size(); }

 private:
  struct Injecting {
    Injection injection;
    DescriptorChannel* channel = nullptr;  // the channel it receives on, if any
  };

  void OnSeccompStop(pid_t tid);
  void OnSyscallStop(pid_t tid);
  void Restartable(pid_t tid, long number);
  void OnExec(pid_t pid);
  void OnExit(pid_t tid);
  void Serve(pid_t tid, std::uint64_t hold, const SyscallEvent& event);
  // Whether `tid` is still held in the stop `hold` (not killed since).
  bool StillHeld(pid_t tid, std::uint64_t hold) const;
  // Forgets the stop `hold` of `tid` that ended without an answer.
  void Unhold(pid_t tid, std::uint64_t hold);
  // Applies `verdict` to the held thread and lets it go on.
  void Release(pid_t tid, const Verdict& verdict);
  // Runs `injection` in the held thread; `channel` is busy until it ends.
  void Inject(pid_t tid, Injection injection, DescriptorChannel* channel);
  // A kInstallFd verdict: the file goes through the thread's channel.
  void Install(pid_t tid, std::uint64_t hold, const SyscallEvent& event,
               std::shared_ptr<Mediator::Decided> decided);
  void SendAndReceive(pid_t tid, std::uint64_t hold, const SyscallEvent& event,
                      std::shared_ptr<Mediator::Decided> decided, DescriptorChannel& channel,
                      std::shared_ptr<UniqueFd> peer);
  // Answers a held thread whose verdict could not be applied as decided.
  void Refuse(pid_t tid, const SyscallEvent& event, Mediator::Decided& decided, int error);

  EventLoop& loop_;
  const Sandbox& sandbox_;
  Mediator mediator_;
  ExecApprovals execs_;
  DescriptorChannels channels_;
  std::map<pid_t, std::uint64_t> held_;  // tid -> which stop (a serial)
  std::map<pid_t, Injecting> injections_;
  // Threads whose skipped call a signal interrupted, with the call's number:
  // at their syscall-exit stop the call is made restartable (Restartable).
  std::map<pid_t, long> interrupted_;
  std::uint64_t next_hold_ = 1;
};

}  // namespace vigil::sentry
