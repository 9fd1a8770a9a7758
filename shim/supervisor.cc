#include "shim/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>

#include "base/file.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/scope_guard.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/device_rules.h"
#include "runtime/cgroup/path.h"
#include "runtime/linux/devices.h"
#include "runtime/linux/namespaces.h"
#include "runtime/process/hooks.h"
#include "sentry/loop/event_loop.h"
#include "sentry/notify/unotify.h"
#include "sentry/notify/unotify_server.h"
#include "shim/audit_observer.h"
#include "shim/control.h"
#include "shim/self_confinement.h"
#include "shim/sentry_sandbox.h"

namespace vigil::shim {
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

// Whether the process at the other end of `conn` runs in an execution domain
// other than PER_LINUX; if that cannot be told, assume it may.
bool PeerPersonalityDiffers(int conn) {
  ucred peer{};
  socklen_t length = sizeof peer;
  if (::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return true;
  Result<std::string> text = ReadFile(StrCat("/proc/", peer.pid, "/personality"), 64);
  return !text || !text->starts_with("00000000");
}

void RaiseDescriptorLimit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == files.rlim_max) return;
  files.rlim_cur = files.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &files);
}

std::string MapLines(const std::vector<config::IdMapping>& mappings) {
  std::string out;
  for (const config::IdMapping& m : mappings) {
    out += StrCat(m.container_id, " ", m.host_id, " ", m.size, "\n");
  }
  return out;
}

class Supervisor {
 public:
  explicit Supervisor(SupervisorArgs args) : args_(std::move(args)) {}

  // Creates the container: on success the init is ready and waits for
  // `start`, and the record says "created".
  Result<void> Create();

  // Serves signals, control requests and the sentry's listeners until the
  // init exits; returns how it ended.
  Result<siginfo_t> Supervise();

  // Records the container as stopped.
  void MarkStopped();

  // After a failed create: the init (if any) killed and reaped, its cgroup
  // removed, so nothing outlives the error.
  void Undo();

 private:
  const config::Linux& LinuxSpec() const {
    static const config::Linux kNone;
    return args_.spec.linux_spec ? *args_.spec.linux_spec : kNone;
  }
  Result<void> SpawnInit();
  Result<void> CreateCgroup();
  Result<void> WriteIdMaps(pid_t pid);
  Result<void> StartSentry();
  void ServeControl();
  void ServeRequest(UniqueFd conn);
  Result<void> Start();
  Result<void> AdoptInitListener(const runtime::Message& announcement);
  void ForwardSignals();

  SupervisorArgs args_;
  pid_t init_pid_ = 0;
  UniqueFd init_pidfd_;
  UniqueFd signal_fd_;
  UniqueFd control_fd_;
  std::optional<Channel> init_channel_;
  std::optional<runtime::cgroup::Cgroup> cgroup_;
  // The UTS namespace the supervisor left for the container's (hooks run here).
  UniqueFd host_uts_;
  bool starting_ = false;  // a start request waits for the init's exec
  std::optional<siginfo_t> exit_;  // how the init ended, once it has
  // The sentry: one event loop for signals, control requests and every
  // seccomp listener of the container.
  std::unique_ptr<sentry::EventLoop> loop_;
  sentry::Sandbox sandbox_;
  std::optional<AuditObserver> audit_;
  std::unique_ptr<sentry::UnotifyServer> sentry_;
};

Result<void> Supervisor::Create() {
  sigset_t forwarded = ForwardedSignals();
  if (::sigprocmask(SIG_BLOCK, &forwarded, nullptr) != 0) return FailErrno("block signals");
  signal_fd_.Reset(::signalfd(-1, &forwarded, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signal_fd_) return FailErrno("signalfd");
  ASSIGN_OR_RETURN(control_fd_, ListenControl(args_.dir.ControlSocketPath()));
  RETURN_IF_ERROR(sentry::unotify::CheckKernelSupport());
  RETURN_IF_ERROR(SpawnInit());
  RETURN_IF_ERROR(StartSentry());

  runtime::ContainerRecord& record = args_.record;
  record.init_pid = init_pid_;
  ASSIGN_OR_RETURN(record.init_start, ProcessStartTime(init_pid_));
  record.status = ContainerStatus::kCreated;
  return args_.dir.SaveRecord(record);
}

// Fiber stacks: handlers are shallow, but a control request runs hooks and
// writes the record on one. Untouched stack pages cost no memory.
constexpr std::size_t kFibers = 64;
constexpr std::size_t kFiberStack = 128 * 1024;
// How long audit records may wait in memory before they are written.
constexpr std::chrono::milliseconds kAuditFlushPeriod(200);

Result<void> Supervisor::StartSentry() {
  // The sentry keeps descriptors for each workload thread it serves. The
  // init is already cloned, so its limit stays the caller's.
  RaiseDescriptorLimit();
  ASSIGN_OR_RETURN(loop_, sentry::EventLoop::Create(kFibers, kFiberStack));
  ASSIGN_OR_RETURN(std::uint64_t init_start, ProcessStartTime(init_pid_));
  ASSIGN_OR_RETURN(host_uts_, JoinContainerUts(init_pid_));
  ASSIGN_OR_RETURN(sandbox_,
                   SentrySandbox(args_.record.id, args_.spec, args_.policy, init_start, *cgroup_));
  ASSIGN_OR_RETURN(sentry::audit::AuditLog log, sentry::audit::AuditLog::Open(args_.record.audit_path));
  audit_.emplace(std::move(log), args_.record.id, args_.policy.audit);
  sentry_ = std::make_unique<sentry::UnotifyServer>(
      *loop_, sandbox_, [this](const sentry::DecisionRecord& decision) { audit_->Record(decision); });
  RETURN_IF_ERROR(loop_->Every(kAuditFlushPeriod, [this] { audit_->Flush(); }));
  RETURN_IF_ERROR(loop_->Watch(signal_fd_.Get(), [this](std::uint32_t) { ForwardSignals(); }));
  return loop_->Watch(control_fd_.Get(), [this](std::uint32_t) { ServeControl(); });
}

Result<void> Supervisor::WriteIdMaps(pid_t pid) {
  const config::Linux& linux_spec = LinuxSpec();
  RETURN_IF_ERROR_WRAP(
      WriteExisting(StrCat("/proc/", pid, "/uid_map"), MapLines(linux_spec.uid_mappings)),
      "write uid mappings");
  RETURN_IF_ERROR_WRAP(
      WriteExisting(StrCat("/proc/", pid, "/gid_map"), MapLines(linux_spec.gid_mappings)),
      "write gid mappings");
  return {};
}

Result<void> Supervisor::CreateCgroup() {
  const config::Linux& linux_spec = LinuxSpec();
  ASSIGN_OR_RETURN(std::vector<runtime::cgroup::Hierarchy> hierarchies,
                   runtime::cgroup::DiscoverHierarchies());
  ASSIGN_OR_RETURN(std::string path,
                   runtime::cgroup::ResolveCgroupPath(linux_spec.cgroups_path, args_.record.id,
                                                      args_.systemd_cgroup));
  ASSIGN_OR_RETURN(cgroup_, runtime::cgroup::Cgroup::Create(hierarchies, path));
  args_.record.cgroup_paths = cgroup_->Paths();
  config::Resources resources = linux_spec.resources.value_or(config::Resources{});
  resources.devices =
      runtime::cgroup::DeviceRulesFor(resources.devices, runtime::DevicesFor(linux_spec.devices));
  return cgroup_->Apply(resources);
}

void Supervisor::Undo() {
  if (init_pidfd_) {
    (void)PidfdSendSignal(init_pidfd_.Get(), SIGKILL);
    siginfo_t info{};
    ::waitid(P_PIDFD, init_pidfd_.Get(), &info, WEXITED);
  }
  if (cgroup_) (void)cgroup_->Destroy();
}

Result<void> Supervisor::SpawnInit() {
  const config::Linux& linux_spec = LinuxSpec();
  RETURN_IF_ERROR(CreateCgroup());
  RETURN_IF_ERROR(runtime::PrepareChildNamespaces(linux_spec));
  ASSIGN_OR_RETURN(auto channels, Channel::Pair());
  auto& [ours, theirs] = channels;
  ASSIGN_OR_RETURN(pid_t pid, CloneWithPidfd(runtime::CloneFlags(linux_spec), &init_pidfd_));
  if (pid == 0) {
    ours.Close();
    runtime::RunContainerInit(args_.spec, theirs, args_.init);
  }
  theirs.Close();
  init_pid_ = pid;
  args_.record.init_pid = pid;
  init_channel_.emplace(std::move(ours));
  // In its cgroup before it does anything: limits hold from the start, and
  // the init's cgroup namespace is rooted there.
  RETURN_IF_ERROR(cgroup_->AddProcess(pid));
  if (runtime::CreatesUserNamespace(linux_spec)) RETURN_IF_ERROR(WriteIdMaps(pid));
  RETURN_IF_ERROR(init_channel_->Send(MessageType::kProceed));
  // Mounts are in place, pivot_root not yet done: the runtime-namespace
  // hooks run now (network setup, device injection), then the init goes on.
  RETURN_IF_ERROR(init_channel_->Expect(MessageType::kMounted));
  config::State state = runtime::HookState(args_.record, ContainerStatus::kCreating);
  RETURN_IF_ERROR(runtime::RunHooks("prestart", runtime::HooksOf(args_.spec, "prestart"), state));
  RETURN_IF_ERROR(
      runtime::RunHooks("createRuntime", runtime::HooksOf(args_.spec, "createRuntime"), state));
  RETURN_IF_ERROR(init_channel_->Send(MessageType::kProceed, config::DumpState(state)));
  RETURN_IF_ERROR(init_channel_->Expect(MessageType::kReady));
  return {};
}

Result<void> Supervisor::Start() {
  if (args_.record.status != ContainerStatus::kCreated || starting_) {
    return Fail(StrCat("cannot start container ", Quote(args_.record.id), ": it is ",
                       starting_ ? "starting" : config::NameOf(args_.record.status),
                       ", not created"));
  }
  starting_ = true;
  ScopeGuard done_starting([this] { starting_ = false; });
  RETURN_IF_ERROR(init_channel_->Send(MessageType::kStart));
  // The init's end of the channel closes on exec: end of file means the
  // program runs; a message means exec failed and says why. Before that the
  // init announces the sentry's listener, and waits until the sentry has it.
  Result<runtime::Message> reply;
  for (;;) {
    RETURN_IF_ERROR(loop_->Wait(init_channel_->fd(), EPOLLIN));
    reply = init_channel_->Receive();
    if (!reply || reply->type != MessageType::kSentryListener) break;
    if (Result<void> adopted = AdoptInitListener(*reply); !adopted) {
      (void)PidfdSendSignal(init_pidfd_.Get(), SIGKILL);
      return adopted;
    }
    RETURN_IF_ERROR(init_channel_->Send(MessageType::kProceed));
  }
  init_channel_.reset();
  if (reply) {
    // The init exits after saying why: the container is stopped, and a
    // second start must be refused, not sent to a closed channel.
    args_.record.status = ContainerStatus::kStopped;
    (void)args_.dir.SaveRecord(args_.record);
    return Fail(reply->type == MessageType::kError ? reply->text : "unexpected message from init");
  }
  if (reply.error().code != EPIPE) return tl::unexpected(reply.error());
  args_.record.status = ContainerStatus::kRunning;
  RETURN_IF_ERROR(args_.dir.SaveRecord(args_.record));
  // A failing poststart hook is worth a warning, not the container (spec).
  if (Result<void> hooks =
          runtime::RunHooks("poststart", runtime::HooksOf(args_.spec, "poststart"),
                            runtime::HookState(args_.record, ContainerStatus::kRunning),
                            host_uts_.Get());
      !hooks) {
    log::Warning(hooks.error().message);
  }
  // Nothing left to start: from here on the supervisor only serves.
  if (Result<void> confined = ConfineSupervisor(); !confined) {
    log::Error(StrCat("the supervisor could not confine itself: ", confined.error().message));
  }
  return {};
}

Result<void> Supervisor::AdoptInitListener(const runtime::Message& announcement) {
  ASSIGN_OR_RETURN(int fd, runtime::ListenerNumber(announcement));
  ASSIGN_OR_RETURN(UniqueFd listener, PidfdGetfd(init_pidfd_.Get(), fd));
  return sentry_->AddListener(std::move(listener));
}

void Supervisor::ServeControl() {
  UniqueFd conn(::accept4(control_fd_.Get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn) return;
  // A request may wait (start waits for the init's exec), so each runs in a
  // fiber; the loop keeps serving the sentry meanwhile.
  auto shared = std::make_shared<UniqueFd>(std::move(conn));
  loop_->Spawn([this, shared] { ServeRequest(std::move(*shared)); });
}

void Supervisor::ServeRequest(UniqueFd conn) {
  if (!loop_->Wait(conn.Get(), EPOLLIN)) return;
  UniqueFd attached;
  Result<std::string> request = ReadRequest(conn.Get(), &attached);
  if (!request) return;
  if (*request == "start") {
    Reply(conn.Get(), Start());
  } else if (*request == "listener" && attached) {
    // An exec'd process's sentry listener, from `vigil exec`, whose
    // execution domain the process inherited.
    if (PeerPersonalityDiffers(conn.Get())) sentry_->AssumePersonalityMayDiffer();
    Reply(conn.Get(), sentry_->AddListener(std::move(attached)));
  } else {
    Reply(conn.Get(), Fail(StrCat("unknown request ", Quote(*request))));
  }
}

void Supervisor::ForwardSignals() {
  signalfd_siginfo info{};
  while (::read(signal_fd_.Get(), &info, sizeof info) == sizeof info) {
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) {
      // As subreaper the supervisor inherits orphans of a container without
      // its own pid namespace; reap them, and notice the init's end.
      siginfo_t child{};
      while (::waitid(P_ALL, 0, &child, WEXITED | WNOHANG) == 0 && child.si_pid != 0) {
        if (child.si_pid == init_pid_) exit_ = child;
        child = {};
      }
      continue;
    }
    (void)PidfdSendSignal(init_pidfd_.Get(), sig);
  }
}

Result<siginfo_t> Supervisor::Supervise() {
  // The init may have died before the first SIGCHLD could be read.
  ForwardSignals();
  RETURN_IF_ERROR(loop_->Run([this] { return exit_.has_value(); }));
  return *exit_;
}

void Supervisor::MarkStopped() {
  if (audit_) audit_->Flush();
  args_.record.status = ContainerStatus::kStopped;
  (void)args_.dir.SaveRecord(args_.record);
  ::unlink(args_.dir.ControlSocketPath().c_str());
}

// Ends the supervisor the way the init ended, so the caller's waitpid sees
// the container's own exit.
[[noreturn]] void MirrorExit(const siginfo_t& exit) {
  if (exit.si_code == CLD_EXITED) ::_exit(exit.si_status);
  int sig = exit.si_status;
  // Do not dump the supervisor's core for the workload's crash.
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // a signal whose default action is not fatal
}

void RedirectStdioToNull() {
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  ::close(null);
}

}  // namespace

void RunSupervisor(SupervisorArgs args, Channel to_create) {
  // The lock stays with `create` until it returns; the record is written
  // only by this process from now on.
  args.dir.Unlock();
  ::prctl(PR_SET_NAME, std::string(runtime::kSupervisorName).c_str(), 0, 0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // Keep terminal-generated signals away: `run` forwards them instead.
  ::setpgid(0, 0);
  Supervisor supervisor(std::move(args));
  if (Result<void> created = supervisor.Create(); !created) {
    supervisor.Undo();
    (void)to_create.Send(MessageType::kError, created.error().message);
    ::_exit(1);
  }
  (void)to_create.Send(MessageType::kCreated);
  to_create.Close();
  // The container holds create's stdio now; the caller's pipes must see EOF
  // when the container closes them, not when the supervisor does.
  RedirectStdioToNull();
  Result<siginfo_t> exit = supervisor.Supervise();
  supervisor.MarkStopped();
  if (!exit) ::_exit(255);
  MirrorExit(*exit);
}

}  // namespace vigil::shim
