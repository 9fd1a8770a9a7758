#include "cli/run_foreground.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <optional>

#include "lifecycle/lifecycle.h"
#include "runtime/process/terminal_relay.h"
#include "runtime/process/wait.h"

namespace vigil::cli {
namespace {

// The container's init comes to us, its subreaper, as a zombie when its
// supervisor exits.
void ReapOrphans() {
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// Blocks `set` for its lifetime; the signals that arrive meanwhile wait
// until WaitForwardingSignals or RelayTerminal reads them.
class BlockedSignals {
 public:
  explicit BlockedSignals(const sigset_t& set) { ::sigprocmask(SIG_BLOCK, &set, &old_); }
  ~BlockedSignals() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

 private:
  sigset_t old_{};
};

}  // namespace

Result<int> RunContainer(lifecycle::CreateOptions options, const RunMode& mode) {
  options.foreground = !mode.detach;
  options.keep = mode.keep;
  // As runc: in the foreground the container's init (which state.pid
  // names) is ours to reap once its supervisor is gone.
  if (!mode.detach && mode.subreaper) ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  // Held from before the container exists: the workload may run before
  // `start` returns, and a TERM sent then must reach it, not end the client
  // with the default action. A forked supervisor starts with none pending.
  sigset_t forwarded = runtime::ForwardedSignals();
  if (mode.detach) sigemptyset(&forwarded);
  const BlockedSignals held(forwarded);
  std::optional<runtime::ConsoleReceiver> console;
  if (mode.relay_terminal) {
    ASSIGN_OR_RETURN(runtime::ConsoleReceiver receiver, runtime::ConsoleReceiver::Open());
    console.emplace(std::move(receiver));
    options.console_socket = console->path();
  }
  ASSIGN_OR_RETURN(pid_t supervisor, lifecycle::CreateContainer(options));
  auto abandon = [&](Error error) -> Result<int> {
    (void)lifecycle::DeleteContainer(options.root, options.id, /*force=*/true);
    ::waitpid(supervisor, nullptr, 0);
    ReapOrphans();
    return tl::unexpected(std::move(error));
  };
  UniqueFd master;
  if (console) {
    Result<UniqueFd> received = console->Receive();
    if (!received) return abandon(std::move(received).error());
    master = *std::move(received);
  }
  if (Result<void> started = lifecycle::StartContainer(options.root, options.id); !started) {
    return abandon(std::move(started).error());
  }
  if (mode.detach) return 0;
  const int status = master ? runtime::RelayTerminal(master.Get(), supervisor)
                            : runtime::WaitForwardingSignals(supervisor);
  ReapOrphans();
  if (!mode.keep)
    RETURN_IF_ERROR(lifecycle::DeleteContainer(options.root, options.id, /*force=*/true));
  return status;
}

}  // namespace vigil::cli
