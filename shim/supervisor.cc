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
#include <optional>

#include "base/file.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/device_rules.h"
#include "runtime/cgroup/path.h"
#include "runtime/linux/devices.h"
#include "runtime/linux/namespaces.h"
#include "runtime/linux/seccomp_listener.h"
#include "runtime/process/hooks.h"
#include "shim/control.h"

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

  // Serves signals and control requests until the init exits; returns how
  // it ended.
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
  void ServeControl();
  Result<void> Start();
  Result<void> ForwardSeccompListener(int listener);
  void ForwardSignals(std::optional<siginfo_t>& exit);

  SupervisorArgs args_;
  pid_t init_pid_ = 0;
  UniqueFd init_pidfd_;
  UniqueFd signal_fd_;
  UniqueFd control_fd_;
  std::optional<Channel> init_channel_;
  std::optional<runtime::cgroup::Cgroup> cgroup_;
};

Result<void> Supervisor::Create() {
  sigset_t forwarded = ForwardedSignals();
  if (::sigprocmask(SIG_BLOCK, &forwarded, nullptr) != 0) return FailErrno("block signals");
  signal_fd_.Reset(::signalfd(-1, &forwarded, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signal_fd_) return FailErrno("signalfd");
  ASSIGN_OR_RETURN(control_fd_, ListenControl(args_.dir.ControlSocketPath()));
  RETURN_IF_ERROR(SpawnInit());

  runtime::ContainerRecord& record = args_.record;
  record.init_pid = init_pid_;
  ASSIGN_OR_RETURN(record.init_start, ProcessStartTime(init_pid_));
  record.status = ContainerStatus::kCreated;
  return args_.dir.SaveRecord(record);
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
  if (args_.record.status != ContainerStatus::kCreated) {
    return Fail(StrCat("cannot start container ", Quote(args_.record.id), ": it is ",
                       config::NameOf(args_.record.status), ", not created"));
  }
  RETURN_IF_ERROR(init_channel_->Send(MessageType::kStart));
  // The init's end of the channel closes on exec: end of file means the
  // program runs; a message means exec failed and says why, or carries the
  // listener of a NOTIFY profile for linux.seccomp.listenerPath.
  Result<runtime::Message> reply = init_channel_->Receive();
  while (reply && reply->type == MessageType::kSeccompListener) {
    if (Result<void> sent = ForwardSeccompListener(reply->fd.Get()); !sent) {
      (void)PidfdSendSignal(init_pidfd_.Get(), SIGKILL);
      return sent;
    }
    reply = init_channel_->Receive();
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
                            runtime::HookState(args_.record, ContainerStatus::kRunning));
      !hooks) {
    log::Warning(hooks.error().message);
  }
  return {};
}

Result<void> Supervisor::ForwardSeccompListener(int listener) {
  const config::Seccomp& seccomp = *LinuxSpec().seccomp;
  std::string state =
      runtime::ContainerProcessState(init_pid_, seccomp.listener_metadata,
                                     runtime::HookState(args_.record, ContainerStatus::kCreated));
  return runtime::SendSeccompListener(seccomp.listener_path, listener, state);
}

void Supervisor::ServeControl() {
  UniqueFd conn(::accept4(control_fd_.Get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn) return;
  Result<std::string> request = ReadRequest(conn.Get());
  if (!request) return;
  if (*request == "start") {
    Reply(conn.Get(), Start());
  } else {
    Reply(conn.Get(), Fail(StrCat("unknown request ", Quote(*request))));
  }
}

void Supervisor::ForwardSignals(std::optional<siginfo_t>& exit) {
  signalfd_siginfo info{};
  while (::read(signal_fd_.Get(), &info, sizeof info) == sizeof info) {
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) {
      // As subreaper the supervisor inherits orphans of a container without
      // its own pid namespace; reap them, and notice the init's end.
      siginfo_t child{};
      while (::waitid(P_ALL, 0, &child, WEXITED | WNOHANG) == 0 && child.si_pid != 0) {
        if (child.si_pid == init_pid_) exit = child;
        child = {};
      }
      continue;
    }
    (void)PidfdSendSignal(init_pidfd_.Get(), sig);
  }
}

Result<siginfo_t> Supervisor::Supervise() {
  UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll) return FailErrno("epoll_create1");
  for (int fd : {signal_fd_.Get(), control_fd_.Get()}) {
    epoll_event ev{.events = EPOLLIN, .data = {.fd = fd}};
    if (::epoll_ctl(epoll.Get(), EPOLL_CTL_ADD, fd, &ev) != 0) return FailErrno("epoll_ctl");
  }
  std::optional<siginfo_t> exit;
  // The init may have died before the first SIGCHLD could be read.
  ForwardSignals(exit);
  while (!exit) {
    epoll_event ev{};
    int n = ::epoll_wait(epoll.Get(), &ev, 1, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno("epoll_wait");
    if (ev.data.fd == signal_fd_.Get()) {
      ForwardSignals(exit);
    } else {
      ServeControl();
    }
  }
  return *exit;
}

void Supervisor::MarkStopped() {
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
