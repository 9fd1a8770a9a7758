// The supervisor's state and steps, shared by the files that implement
// them: creating the container (supervisor_create.cc) and serving it until
// the init exits (supervisor_serve.cc). RunSupervisor (supervisor.cc) drives
// them. Internal to supervisor/.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/process/channel.h"
#include "runtime/process/hooks.h"
#include "sentry/core/platform.h"
#include "sentry/core/sandbox.h"
#include "sentry/loop/event_loop.h"
#include "sentry/names/learned_names.h"
#include "sentry/names/resolver.h"
#include "sentry/serve/backend.h"
#include "supervisor/audit_observer.h"
#include "supervisor/control_peers.h"
#include "supervisor/supervisor_args.h"

namespace vigil::supervisor {

// Why the supervisor ends the container itself (supervisor_ending.cc).
enum class Ending { kTimeout, kClientSignal, kClientGone, kMemoryLimit };

class Supervisor {
 public:
  explicit Supervisor(SupervisorArgs args) : args_(std::move(args)) {}

  // Creates the container: on success the init is ready and waits for
  // `start`, and the record says "created".
  Result<void> Create();

  // The container's init: the pid `create` reports (state.pid, --pid-file).
  pid_t init_pid() const { return init_pid_; }

  // Serves signals, control requests and the sentry's listeners until the
  // init exits; returns how it ended. The init is left a zombie, not
  // reaped: when the supervisor exits it passes to the caller's subreaper
  // (containerd's shim, conmon), which reaps it as runc's init and reads
  // its exit status.
  Result<siginfo_t> Supervise();

  // Records the container as stopped.
  void MarkStopped();

  // After a foreground `run`'s client ended before the container did (and
  // without --keep): removes the container's cgroup and state, as the
  // client's `delete` would have (not its poststop hooks: a container that
  // has some stays, stopped, for `vigil delete`).
  void RemoveIfClientGone();

  // After a failed create: the init (if any) killed and reaped, its cgroup
  // removed, so nothing outlives the error.
  void Undo();

 private:
  // The sentry's backend, as create recorded it.
  sentry::Platform Platform() const { return args_.record.platform; }
  const config::Linux& LinuxSpec() const {
    static const config::Linux kNone;
    return args_.spec.linux_spec ? *args_.spec.linux_spec : kNone;
  }
  Result<void> SpawnInit();
  Result<void> CreateCgroup();
  Result<void> GoWithoutCgroup(const Error& why);
  // The config's limits without a cgroup (supervisor_without_cgroup.cc):
  // pids as RLIMIT_NPROC for the init to set, memory for the supervisor to
  // watch; says what holds, for the warning.
  std::string CapWithoutCgroup();
  Result<void> WatchMemoryWithoutCgroup();
  // Back to the cgroups the supervisor joined the container's from, so
  // that they can be removed.
  void LeaveContainerCgroups();
  // Where hooks run: the supervisor's own UTS namespace and cgroups, as
  // runc's hooks run in runc's.
  runtime::HookPlacement HookPlacement() const;
  // Sums up floods of repeated audit records every so often, and records
  // the cgroup limits' work then (supervisor_limits.cc).
  Result<void> WatchAuditSweep();
  void StartCountingLimits();
  void RecordLimitEvents();
  Result<void> StartSentry();
  // The sandbox's own resolver, where the compiled policy has one
  // (supervisor_names.cc): listening in the container's network namespace,
  // which the supervisor's thread is in.
  Result<void> StartNameService();
  // slirp4netns for `vigil do --net allow=` (supervisor_user_network.cc),
  // started before the supervisor joins the container's namespaces.
  Result<void> StartUserNetwork();
  // Until the init reports ready, adopting what it hands the sentry.
  Result<void> AwaitInitReady();
  Result<void> ReceiveUntilReady();  // AwaitInitReady's fiber
  void ServeControl();
  void ServeRequest(UniqueFd conn);
  Result<void> Start();
  Result<void> AdoptInit(const runtime::Message& announcement);
  Result<void> HandInitToSeccompAgent(const runtime::Message& announcement);
  // The init's next message other than the sentry's announcements, each of
  // which is adopted and answered (kProceed) on the way; an init whose
  // announcement cannot be adopted is killed. The receive error as it is
  // (EPIPE: the init's end closed, as it does on exec).
  Result<runtime::Message> ReceiveServingSentry();
  // An exec'd process on the ptrace platform: `pidfd` to trace it by, and
  // the number of the sentry's end of its descriptor channel in it.
  Result<void> AdoptTracee(const UniqueFd& pidfd, std::string_view channel_number);
  // Whether `start` still needs what the supervisor's confinement takes
  // away: spawning poststart hooks, or connecting to the seccomp agent
  // (an init that cannot become the container's process at create loads
  // the profile, and announces its listener, at start).
  bool ActsUnconfinedAtStart() const;
  // Installs the supervisor's own filter (supervisor/self_confinement.h) once
  // nothing is left to spawn: from then on it only serves.
  void Confine();
  void ForwardSignals();
  // Endings the supervisor makes itself (supervisor_ending.cc): the
  // timer for the timeout and grace periods, and a foreground client's end.
  Result<void> WatchEndings();
  // The timeout, armed before the program starts.
  Result<void> ArmTimeout();
  // The timeout counts the time the container runs: pause stops its clock,
  // resume starts it again with what was left.
  Result<void> StopTimeoutClock();
  Result<void> RestartTimeoutClock();
  void BeginEnding(Ending why);
  void KillEveryProcess();
  void RecordEnding(std::vector<sentry::audit::Arg> details);
  // Sends `sig` to the init and every other process in the container's
  // cgroup; returns how many it reached.
  std::size_t SignalEveryProcess(int sig);

  // How long past its TTL an answer of the sandbox's resolver still allows
  // connects: clients cache beyond it (Java 30 s), and a TTL of 0 is common.
  static constexpr std::chrono::seconds kLearnedNamesGrace{30};

  SupervisorArgs args_;
  pid_t init_pid_ = 0;
  UniqueFd init_pidfd_;
  UniqueFd signal_fd_;
  UniqueFd control_fd_;
  std::optional<ControlPeers> control_peers_;  // who may send on control_fd_
  UniqueFd audit_sweep_timer_;                 // AuditObserver::kSweepPeriod, periodic
  UniqueFd ending_timer_;                      // the timeout, then a grace period
  UniqueFd client_pidfd_;                      // a foreground `run`'s
  std::optional<Ending> ending_;
  std::optional<std::uint64_t> timeout_left_ms_;  // while paused (StopTimeoutClock)
  std::optional<std::uint64_t> memory_cap_;       // without a cgroup (CapWithoutCgroup)
  std::uint64_t memory_over_ = 0;                 // what the container held past it
  UniqueFd memory_timer_;
  // The cgroup's counters as last recorded (supervisor_limits.cc).
  std::uint64_t seen_oom_kills_ = 0;
  std::uint64_t seen_pids_refusals_ = 0;
  std::optional<runtime::Channel> init_channel_;
  std::optional<runtime::cgroup::Cgroup> cgroup_;
  // The namespaces the supervisor left for the container's (hooks run there).
  std::vector<UniqueFd> runtime_namespaces_;
  // The cgroup.procs files of the cgroups the supervisor left for the
  // container's (CreateCgroup).
  std::vector<std::string> hook_cgroups_;
  bool starting_ = false;  // a start request waits for the init's exec
  bool confined_ = false;
  std::optional<siginfo_t> exit_;  // how the init ended, once it has
  // The sentry: one event loop for signals, control requests and every
  // seccomp listener of the container.
  std::unique_ptr<sentry::EventLoop> loop_;
  sentry::Sandbox sandbox_;
  std::optional<AuditObserver> audit_;
  // What the sandbox's resolver answered, which connects follow, and the
  // resolver (its answers recorded through audit_).
  sentry::names::LearnedNames learned_names_{kLearnedNamesGrace};
  std::unique_ptr<sentry::names::Resolver> resolver_;
  // slirp4netns, and its exit descriptor's other end: it ends when this
  // closes, with the supervisor.
  pid_t user_network_pid_ = 0;
  UniqueFd user_network_exit_;
  std::unique_ptr<sentry::Backend> sentry_;
};

}  // namespace vigil::supervisor
