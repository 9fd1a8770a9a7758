// Creating the container: the cgroup, the init in its namespaces, the
// hooks of the runtime namespace, and the sentry that will serve it.
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/file.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/cgroup/device_rules.h"
#include "runtime/cgroup/hierarchy.h"
#include "runtime/cgroup/path.h"
#include "runtime/container/supervisor_control.h"
#include "runtime/linux/bind_sources.h"
#include "runtime/linux/id_maps.h"
#include "runtime/linux/namespaces.h"
#include "runtime/process/hooks.h"
#include "runtime/process/wait.h"
#include "sentry/notify/unotify.h"
#include "sentry/notify/unotify_server.h"
#include "sentry/ptrace/ptrace_server.h"
#include "supervisor/sentry_sandbox.h"
#include "supervisor/supervisor_process.h"

namespace vigil::supervisor {
namespace {

using config::ContainerStatus;
using runtime::Channel;
using runtime::MessageType;

// Signals the supervisor receives through its signalfd: everything it can
// catch except the synchronous faults, which must stay fatal to itself.
sigset_t ForwardedSignals() {
  sigset_t set;
  sigfillset(&set);
  for (int sig : {SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS}) {
    sigdelset(&set, sig);
  }
  return set;
}

void RaiseDescriptorLimit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == files.rlim_max) return;
  files.rlim_cur = files.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &files);
}

// The v1 controllers the supervisor joins the container's cgroup in
// (Cgroup::AddProcessFor): what it uses is charged there. Not freezer (a
// paused container's supervisor still answers state, kill and delete),
// pids (it is no process of the container's: kill --all, ps) or devices
// (it opens devices only as the device rules allow, sentry_sandbox.cc).
constexpr std::string_view kSupervisorAccountingNames[] = {"memory", "cpu", "cpuacct", "cpuset",
                                                           "blkio"};
constexpr std::span<const std::string_view> kSupervisorAccounting(kSupervisorAccountingNames);

}  // namespace

Result<void> Supervisor::Create() {
  sigset_t forwarded = ForwardedSignals();
  if (::sigprocmask(SIG_BLOCK, &forwarded, nullptr) != 0) return FailErrno("block signals");
  signal_fd_.Reset(::signalfd(-1, &forwarded, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signal_fd_) return FailErrno("signalfd");
  ASSIGN_OR_RETURN(control_fd_, runtime::ListenControl(args_.dir.ControlSocketPath()));
  if (Platform() == sentry::Platform::kUnotify)
    RETURN_IF_ERROR(sentry::unotify::CheckKernelSupport());
  RETURN_IF_ERROR(SpawnInit());
  // While the init finishes its world: the sentry, which its last steps
  // before ready may already need.
  if (Result<void> started = StartSentry(); !started) {
    // Looking at the init's namespaces fails once it has ended: when it
    // ended on an error (a missing program), that is the one to report.
    if (Result<bool> said = runtime::PollReadable(init_channel_->fd(), 0); said && *said) {
      if (Result<runtime::Message> reason = init_channel_->Receive();
          reason && reason->type == MessageType::kError) {
        return Fail(reason->text);
      }
    }
    return started;
  }
  RETURN_IF_ERROR(AwaitInitReady());

  runtime::ContainerRecord& record = args_.record;
  record.init_pid = init_pid_;
  ASSIGN_OR_RETURN(record.init_start, ProcessStartTime(init_pid_));
  record.status = ContainerStatus::kCreated;
  return args_.dir.SaveRecord(record);
}

// Fiber stacks: handlers are shallow, but a control request runs hooks and
// writes the record on one. Untouched stack pages cost no memory. 64 up
// front; more as calls wait (a FIFO's other end, a full socket), up to
// kMostFibers, the last of which no handler may wait in
// (sentry/serve/mediator.cc).
constexpr std::size_t kFibers = 64;
constexpr std::size_t kFiberStack = 128 * 1024;
constexpr std::size_t kMostFibers = 1024;
// How long audit records may wait in memory before they are written.
constexpr std::chrono::milliseconds kAuditFlushPeriod(200);

Result<void> Supervisor::StartSentry() {
  // The sentry keeps descriptors for each workload thread it serves. The
  // init is already cloned, so its limit stays the caller's.
  RaiseDescriptorLimit();
  ASSIGN_OR_RETURN(loop_, sentry::EventLoop::Create(kFibers, kFiberStack, kMostFibers));
  ASSIGN_OR_RETURN(std::uint64_t init_start, ProcessStartTime(init_pid_));
  ASSIGN_OR_RETURN(control_peers_, ControlPeers::For(init_pid_));
  // Before a user's supervisor joins the container's network namespace.
  ASSIGN_OR_RETURN(const bool host_network, SharesHostNetwork(init_pid_));
  RETURN_IF_ERROR(StartUserNetwork());
  const bool rootless = ::geteuid() != 0;
  if (rootless) {
    // Its hooks then run in the container's UTS, IPC and network namespaces.
    RETURN_IF_ERROR(JoinContainerNamespacesForGood(init_pid_));
  } else {
    ASSIGN_OR_RETURN(runtime_namespaces_, JoinContainerNamespaces(init_pid_));
  }
  // As create compiled it (held in the record for the supervisor's life).
  const runtime::CompiledPolicy& compiled = *args_.record.compiled;
  const config::Policy& policy = compiled.rules;
  ASSIGN_OR_RETURN(sandbox_, SentrySandbox(args_.record.id, args_.spec, policy, init_start,
                                           cgroup_ ? &*cgroup_ : nullptr));
  sandbox_.credentials_fixed = compiled.credentials_fixed;
  sandbox_.kernel_write_trees = compiled.kernel_write_trees;
  sandbox_.own_network = !host_network;
  ASSIGN_OR_RETURN(sentry::audit::AuditLog log,
                   sentry::audit::AuditLog::Open(args_.record.audit_path));
  log.SetRotation(
      {.max_bytes = args_.record.audit_max_bytes, .max_files = args_.record.audit_max_files});
  // A thread of the supervisor's: started before ConfineSupervisor, whose
  // filter then covers it too (TSYNC).
  ASSIGN_OR_RETURN(std::unique_ptr<sentry::audit::AuditWriter> writer,
                   sentry::audit::AuditWriter::Start(std::move(log), kAuditFlushPeriod));
  audit_.emplace(std::move(writer), args_.record.id, policy.audit);
  audit_->RecordLogOfThisThread(init_pid_);
  audit_->RecordEgressHosts(policy, init_pid_);
  // How the policy judges such a container, for whoever reads its audit:
  // not a warning on every run's terminal (`vigil do --net allow` asks for
  // exactly this, and docs/do.md says so).
  if (host_network && policy.egress_default_deny) {
    constexpr std::string_view kHostLoopback =
        "the container shares the host's network namespace: its loopback and abstract unix "
        "names are the host's, so the policy's egress allow-list judges 127.0.0.0/8 and ::1 "
        "like any other address, and abstract unix names are refused";
    log::Info(kHostLoopback);
    audit_->RecordEvent("supervisor", init_pid_, sentry::audit::Decision::kNone,
                        {{"level", "notice"}, {"message", std::string(kHostLoopback)}});
  }
  RETURN_IF_ERROR(StartNameService());
  auto record = [this](const sentry::DecisionRecord& decision) { audit_->Record(decision); };
  RETURN_IF_ERROR(WatchAuditSweep());
  RETURN_IF_ERROR(WatchEndings());
  RETURN_IF_ERROR(WatchMemoryWithoutCgroup());
  if (Platform() == sentry::Platform::kPtrace) {
    sentry_ = std::make_unique<sentry::PtraceServer>(*loop_, sandbox_, record);
  } else {
    sentry_ = std::make_unique<sentry::UnotifyServer>(*loop_, sandbox_, record);
  }
  RETURN_IF_ERROR(loop_->Watch(signal_fd_.Get(), [this](std::uint32_t) { ForwardSignals(); }));
  return loop_->Watch(control_fd_.Get(), [this](std::uint32_t) { ServeControl(); });
}

Result<void> Supervisor::WatchAuditSweep() {
  audit_sweep_timer_.Reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  if (!audit_sweep_timer_) return FailErrno("timerfd_create");
  const auto period =
      std::chrono::duration_cast<std::chrono::nanoseconds>(AuditObserver::kSweepPeriod);
  const timespec every{.tv_sec = static_cast<time_t>(period.count() / 1'000'000'000),
                       .tv_nsec = static_cast<long>(period.count() % 1'000'000'000)};
  const itimerspec spec{.it_interval = every, .it_value = every};
  if (::timerfd_settime(audit_sweep_timer_.Get(), 0, &spec, nullptr) != 0) {
    return FailErrno("timerfd_settime");
  }
  StartCountingLimits();
  return loop_->Watch(audit_sweep_timer_.Get(), [this](std::uint32_t) {
    std::uint64_t expirations = 0;
    (void)!::read(audit_sweep_timer_.Get(), &expirations, sizeof expirations);
    RecordLimitEvents();
    audit_->Sweep();
  });
}

Result<void> Supervisor::CreateCgroup() {
  const config::Linux& linux_spec = LinuxSpec();
  ASSIGN_OR_RETURN(std::vector<runtime::cgroup::Hierarchy> hierarchies,
                   runtime::cgroup::DiscoverHierarchies());
  ASSIGN_OR_RETURN(std::string path,
                   runtime::cgroup::ResolveCgroupPath(linux_spec.cgroups_path, args_.record.id,
                                                      args_.systemd_cgroup));
  Result<runtime::cgroup::Cgroup> created = runtime::cgroup::Cgroup::Create(hierarchies, path);
  if (!created && !runtime::IsHostRoot() &&
      (created.error().code == EACCES || created.error().code == EPERM ||
       created.error().code == EROFS)) {
    return GoWithoutCgroup(created.error());
  }
  if (!created) return tl::unexpected(created.error());
  cgroup_ = std::move(*created);
  args_.record.cgroup_paths = cgroup_->Paths();
  config::Resources resources = linux_spec.resources.value_or(config::Resources{});
  resources.devices = runtime::cgroup::DeviceRulesFor(resources.devices);
  RETURN_IF_ERROR(cgroup_->Apply(resources));
  // The sentry's work for the container is the container's: its CPU time
  // and memory (audit buffers, tmpfs pages it writes on the workload's
  // behalf) count against the container's limits and show in its stats, as
  // gVisor's Sentry does in the pod's cgroup. A workload cannot make its
  // supervisor burn more than its own quota.
  hook_cgroups_ = cgroup_->HomesFor(kSupervisorAccounting);
  return cgroup_->AddProcessFor(::getpid(), kSupervisorAccounting);
}

// A user's container (rootless) gets a cgroup only where the user may make
// one (a cgroup2 subtree delegated to it); elsewhere it runs without one,
// as runc's does, unless its config sets a limit only a cgroup can hold.
// The policy's limits then hold by other means, so nothing is wrong and
// nothing is printed (every `vigil do` of a user here would say it);
// pause and stats say in their own error that they need the cgroup.
Result<void> Supervisor::GoWithoutCgroup(const Error& why) {
  if (!args_.config_limit.empty()) {
    return Fail(StrCat("cannot set ", args_.config_limit,
                       ": a user's container could not create its cgroup: ", why.message));
  }
  log::Info(StrCat("container ", args_.record.id, " has no cgroup (", why.message,
                   "): ", CapWithoutCgroup(), "; no pause or stats"));
  return {};
}

runtime::HookPlacement Supervisor::HookPlacement() const {
  runtime::HookPlacement placement{.cgroup_procs = hook_cgroups_};
  for (const UniqueFd& ns : runtime_namespaces_) placement.namespaces.push_back(ns.Get());
  return placement;
}

void Supervisor::Undo() {
  if (init_pidfd_) runtime::KillAndReap(init_pid_);
  if (user_network_pid_ > 0) runtime::KillAndReap(user_network_pid_);
  if (cgroup_) {
    LeaveContainerCgroups();
    (void)cgroup_->Destroy();
  }
}

void Supervisor::LeaveContainerCgroups() {
  if (cgroup_) (void)cgroup_->RemoveProcessFor(::getpid(), kSupervisorAccounting);
}

Result<void> Supervisor::SpawnInit() {
  const config::Linux& linux_spec = LinuxSpec();
  RETURN_IF_ERROR(CreateCgroup());
  ASSIGN_OR_RETURN(runtime::ChildNamespaces own_namespaces,
                   runtime::PrepareChildNamespaces(linux_spec));
  // Taken while the supervisor is still the host's root: the init's mapped
  // root may not be able to reach them (runtime/linux/bind_sources.h). A
  // user's supervisor may not take them (open_tree needs CAP_SYS_ADMIN);
  // its init reaches what the user does, and binds them itself.
  std::vector<UniqueFd> bind_sources;
  if (runtime::CreatesUserNamespace(linux_spec) && ::geteuid() == 0) {
    ASSIGN_OR_RETURN(bind_sources, runtime::TakeBindSources(args_.spec));
    args_.init.bind_sources = runtime::DescriptorsOf(bind_sources);
  }
  ASSIGN_OR_RETURN(auto channels, Channel::Pair());
  auto& [ours, theirs] = channels;
  ASSIGN_OR_RETURN(pid_t pid, CloneWithPidfd(runtime::CloneFlags(linux_spec), &init_pidfd_));
  if (pid == 0) {
    ours.Close();
    runtime::RunContainerInit(args_.spec, theirs, args_.init);
  }
  bind_sources.clear();                                        // the init has its copies
  if (::geteuid() != 0) ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);  // supervisor.cc says why
  theirs.Close();
  RETURN_IF_ERROR(own_namespaces.Restore());
  init_pid_ = pid;
  args_.record.init_pid = pid;
  init_channel_.emplace(std::move(ours));
  // In its cgroup before it does anything: limits hold from the start, and
  // the init's cgroup namespace is rooted there.
  if (cgroup_) RETURN_IF_ERROR(cgroup_->AddProcess(pid));
  if (runtime::CreatesUserNamespace(linux_spec)) {
    RETURN_IF_ERROR(runtime::WriteIdMaps(pid, linux_spec.uid_mappings, linux_spec.gid_mappings));
  }
  RETURN_IF_ERROR(init_channel_->Send(MessageType::kProceed));
  // Mounts are in place, pivot_root not yet done: the runtime-namespace
  // hooks run now (network setup, device injection), then the init goes on.
  RETURN_IF_ERROR(init_channel_->Expect(MessageType::kMounted));
  config::State state = runtime::HookState(args_.record, ContainerStatus::kCreating);
  RETURN_IF_ERROR(runtime::RunHooks("prestart", runtime::HooksOf(args_.spec, "prestart"), state,
                                    HookPlacement()));
  RETURN_IF_ERROR(runtime::RunHooks("createRuntime", runtime::HooksOf(args_.spec, "createRuntime"),
                                    state, HookPlacement()));
  return init_channel_->Send(MessageType::kProceed, config::DumpState(state));
}

// An init that becomes the container's process at create
// (runtime/process/init.h) announces the sentry's listener, or asks to be
// traced, on its way to ready, and without no_new_privileges switches user
// under the sentry's filter: so the loop serves while it waits. One that
// waits for `start` first does all that during start (Start).
Result<void> Supervisor::AwaitInitReady() {
  std::optional<Result<void>> ready;
  loop_->Spawn([this, &ready] { ready = ReceiveUntilReady(); });
  RETURN_IF_ERROR(loop_->Run([&ready] { return ready.has_value(); }));
  return *ready;
}

Result<void> Supervisor::ReceiveUntilReady() {
  ASSIGN_OR_RETURN(runtime::Message message, ReceiveServingSentry());
  switch (message.type) {
    case MessageType::kReady:
      return {};
    case MessageType::kError:
      return Fail(message.text);
    default:
      return Fail(StrCat("unexpected message ", static_cast<std::uint32_t>(message.type),
                         " from the init"));
  }
}

}  // namespace vigil::supervisor
