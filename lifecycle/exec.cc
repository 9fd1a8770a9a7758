#include "lifecycle/exec.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <optional>

#include "base/file.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "config/policy/policy.h"
#include "lifecycle/create.h"
#include "runtime/cgroup/attach_primer.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/status.h"
#include "runtime/container/supervisor_control.h"
#include "runtime/linux/namespaces.h"
#include "runtime/linux/scheduling.h"
#include "runtime/linux/session.h"
#include "runtime/policy/policy_compiler.h"
#include "runtime/policy/process_filters.h"
#include "runtime/process/channel.h"
#include "runtime/process/console.h"
#include "runtime/process/launch.h"
#include "runtime/process/seccomp_agent.h"
#include "runtime/process/terminal_relay.h"
#include "runtime/process/wait.h"

namespace vigil::lifecycle {
namespace {

// The exec'd process after it joined the container: waits for the go-ahead,
// then prepares and execs. Errors go back over `channel`.
// `launch` names the filters; its channel is `channel`.
[[noreturn]] void RunExecProcess(const ExecOptions& options, const runtime::Channel& channel,
                                 int console_socket, const runtime::LaunchOptions& launch) {
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  Result<void> result = [&]() -> Result<void> {
    RETURN_IF_ERROR(channel.Expect(runtime::MessageType::kProceed));
    const config::Process& process = options.process;
    // Never in the caller's session, terminal or not: there /dev/tty and
    // TIOCSTI on an inherited descriptor reach the operator's terminal.
    RETURN_IF_ERROR(runtime::LeaveTerminalSession());
    if (process.terminal)
      RETURN_IF_ERROR(
          runtime::SetupConsole(console_socket, process.console_size, process.user.uid));
    // execCPUAffinity.final: once in the container's cgroup (where the
    // initial affinity may not be allowed any more).
    if (process.exec_cpu_affinity && !process.exec_cpu_affinity->final.empty()) {
      RETURN_IF_ERROR(runtime::ApplyCpuAffinity(process.exec_cpu_affinity->final));
    }
    ASSIGN_OR_RETURN(std::string executable, runtime::PrepareProcess(process));
    // Named as runc's debug lines are, which its users grep.
    log::Debug(StrCat("child process in init(): process prepared; setns_init: about to exec ",
                      executable));
    return runtime::BecomeAndExec(process, executable, launch);
  }();
  channel.ExitWithError(result.error(), 127);
}

// Joins every namespace of the init (pidfd setns, Linux 5.8) and forks the
// process that lives in them; the fork is a sibling (CLONE_PARENT), so the
// `vigil exec` process can wait for it. Runs in a short-lived child.
[[noreturn]] void JoinAndSpawn(const ExecOptions& options, int init_pidfd, int ns_flags,
                               const runtime::Channel& channel, int console_socket,
                               const runtime::LaunchOptions& launch) {
  if (::setns(init_pidfd, ns_flags) != 0) {
    channel.ExitWithError(FailErrno("join the container's namespaces").value(), 1);
  }
  log::Debug("nsexec container setup: joined the container's namespaces");
  // execCPUAffinity.initial: the new process starts with it and keeps it
  // until it is in the container's cgroup.
  if (options.process.exec_cpu_affinity && !options.process.exec_cpu_affinity->initial.empty()) {
    if (Result<void> set = runtime::ApplyCpuAffinity(options.process.exec_cpu_affinity->initial);
        !set) {
      channel.ExitWithError(set.error(), 1);
    }
  }
  UniqueFd unused;
  Result<pid_t> pid = CloneWithPidfd(CLONE_PARENT, &unused);
  if (!pid) channel.ExitWithError(pid.error(), 1);
  if (*pid == 0) RunExecProcess(options, channel, console_socket, launch);
  (void)channel.Send(runtime::MessageType::kReady, StrCat(*pid));
  ::_exit(0);
}

// Gives the exec'd process to the container's supervisor, whose sentry
// serves it: a copy of its listener (descriptor `number` in it), or on the
// ptrace platform a pidfd, for the supervisor to trace it by, and the
// number of the sentry's end of its descriptor channel in it.
Result<void> HandToSupervisor(const runtime::StateDir& dir, pid_t pid,
                              const runtime::Message& announcement) {
  ASSIGN_OR_RETURN(UniqueFd process, PidfdOpen(pid));
  if (announcement.type == runtime::MessageType::kSentryTracee) {
    RETURN_IF_ERROR_WRAP(runtime::CallSupervisor(dir.ControlSocketPath(),
                                                 {.verb = runtime::ControlVerb::kTracee,
                                                  .channel_number = announcement.text},
                                                 process.Get()),
                         "hand the exec'd process to the sentry");
    return {};
  }
  ASSIGN_OR_RETURN(int fd, runtime::AnnouncedDescriptor(announcement.text));
  ASSIGN_OR_RETURN(UniqueFd listener, PidfdGetfd(process.Get(), fd));
  RETURN_IF_ERROR_WRAP(
      runtime::CallSupervisor(dir.ControlSocketPath(), {.verb = runtime::ControlVerb::kListener},
                              listener.Get()),
      "hand the exec'd process to the sentry");
  return {};
}

bool IsAnnouncement(runtime::MessageType type) {
  return type == runtime::MessageType::kSentryListener ||
         type == runtime::MessageType::kSentryTracee ||
         type == runtime::MessageType::kAgentListener;
}

// The exec'd process's state as runc gives it to the agent: the
// container's, running, with the process's own pid beside it.
Result<void> ServeAnnouncement(const runtime::StateDir& dir, const config::Spec& spec,
                               const runtime::ContainerRecord& record, pid_t pid,
                               const runtime::Message& announcement) {
  if (announcement.type != runtime::MessageType::kAgentListener) {
    return HandToSupervisor(dir, pid, announcement);
  }
  ASSIGN_OR_RETURN(UniqueFd process, PidfdOpen(pid));
  return runtime::HandToSeccompAgent(*spec.linux_spec->seccomp, process.Get(), announcement.text,
                                     pid,
                                     runtime::HookState(record, config::ContainerStatus::kRunning));
}

// The process started when a later step failed: it must not run
// on unmanaged.
tl::unexpected<Error> Abandon(pid_t pid, Error error) {
  runtime::KillAndReap(pid);
  return tl::unexpected(std::move(error));
}

}  // namespace

Result<config::Process> ContainerProcess(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(runtime::StateDir dir, runtime::StateDir::Open(root, id));
  ASSIGN_OR_RETURN(config::Spec spec, dir.LoadConfig());
  return *spec.process;
}

namespace {

// What create compiled; for a container created before the compiler, the
// same compiled now from what it recorded.
Result<runtime::CompiledPolicy> CompiledPolicyOf(const runtime::ContainerRecord& record,
                                                 const config::Spec& spec) {
  if (record.compiled) return *record.compiled;
  ASSIGN_OR_RETURN(config::Policy chosen, record.policy.empty()
                                              ? config::BuiltinPolicy("default")
                                              : config::ParsePolicy(record.policy));
  return runtime::CompileRecorded(std::move(chosen), spec, record.platform, runtime::ThisHost());
}

}  // namespace

Result<int> ExecInContainer(const ExecOptions& requested) {
  ASSIGN_OR_RETURN(runtime::StateDir dir, runtime::StateDir::Open(requested.root, requested.id));
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, dir.LoadRecord());
  const config::ContainerStatus status = CurrentStatus(record);
  if (status != config::ContainerStatus::kPaused) {
    RETURN_IF_ERROR(runtime::CheckTransition(runtime::Verb::kExec, status, requested.id));
  } else if (!requested.ignore_paused) {
    // runc's words, which its users' scripts and tests match.
    return Fail(StrCat("container ", Quote(requested.id),
                       ": cannot exec in a paused container (use --ignore-paused to override)"));
  }
  ASSIGN_OR_RETURN(config::Spec spec, dir.LoadConfig());
  ASSIGN_OR_RETURN(UniqueFd init, PidfdOpen(record.init_pid));
  if (!ProcessAlive(record.init_pid, record.init_start)) {
    return Fail(StrCat("container ", Quote(requested.id), " is stopped: container not running"));
  }
  // The grace period the process's cgroup join waits for passes meanwhile.
  const runtime::cgroup::AttachPrimer primer = runtime::cgroup::AttachPrimer::Start();
  // In the foreground without a console socket, vigil relays the terminal
  // itself (as runc's exec -t does); detached, someone must take it.
  std::optional<runtime::ConsoleReceiver> own_console;
  if (requested.process.terminal && requested.console_socket.empty()) {
    if (requested.detach) {
      return Fail(
          "process.terminal is true: cannot allocate a terminal if vigil detaches without "
          "--console-socket");
    }
    ASSIGN_OR_RETURN(runtime::ConsoleReceiver receiver, runtime::ConsoleReceiver::Open());
    own_console.emplace(std::move(receiver));
  }
  ASSIGN_OR_RETURN(const runtime::CompiledPolicy compiled, CompiledPolicyOf(record, spec));
  ExecOptions options = requested;
  if (own_console) options.console_socket = own_console->path();
  ASSIGN_OR_RETURN(
      std::unique_ptr<runtime::ProcessFilters> filters,
      runtime::ProcessFilters::Compile(spec, runtime::LaunchFilterFor(compiled, options.process),
                                       compiled.landlock));
  UniqueFd console;
  if (options.process.terminal) {
    ASSIGN_OR_RETURN(console, runtime::ConnectConsoleSocket(options.console_socket));
  }
  ASSIGN_OR_RETURN(runtime::Channel::Forked forked,
                   runtime::Channel::Fork("to join the container"));
  if (forked.pid == 0) {
    const runtime::Channel& theirs = forked.channel;
    // The lock stays with this verb alone: a copy kept by the process (a
    // shared open file description) would hold it for as long as the
    // process waits before its exec, frozen in a paused container.
    dir.Unlock();
    runtime::LaunchOptions launch = filters->Launch(options.preserve_fds);
    launch.channel = &theirs;
    JoinAndSpawn(options, init.Get(),
                 spec.linux_spec ? runtime::NamespaceFlags(*spec.linux_spec) : 0, theirs,
                 console.Get(), launch);
  }
  const pid_t joiner = forked.pid;
  const runtime::Channel& ours = forked.channel;
  Result<runtime::Message> spawned = ours.Expect(runtime::MessageType::kReady);
  ::waitpid(joiner, nullptr, 0);
  if (!spawned) return tl::unexpected(spawned.error());
  pid_t pid = 0;
  std::from_chars(spawned->text.data(), spawned->text.data() + spawned->text.size(), pid);

  // Into the container's cgroup before it runs anything: its limits and
  // `kill --all`, `pause` and `delete` must reach exec'd processes too.
  ASSIGN_OR_RETURN(std::optional<runtime::cgroup::Cgroup> cg, runtime::ContainerCgroup(record));
  if (cg) {
    Result<void> joined = cg->AddProcess(pid);
    for (const ExecOptions::SubCgroup& sub : options.sub_cgroups) {
      if (joined) joined = cg->AddProcessBeneath(pid, sub.path, sub.controllers);
    }
    if (!joined) {
      return Abandon(pid, std::move(joined).error());
    }
  } else if (!options.sub_cgroups.empty()) {
    return Abandon(pid, Error{.message = "--cgroup: the container has no cgroup"});
  }
  // In a paused container the process now sits frozen until `resume`,
  // which must not wait behind this exec's lock.
  if (status == config::ContainerStatus::kPaused) dir.Unlock();
  RETURN_IF_ERROR(ours.Send(runtime::MessageType::kProceed));
  // End of file means the program runs (the channel closes on exec). Before
  // that the process announces the sentry's listener (or asks to be
  // traced), which goes to the supervisor, and a notifying profile's
  // listener, which goes to the seccomp agent, each before it may go on.
  Result<runtime::Message> outcome = ours.Receive();
  while (outcome && IsAnnouncement(outcome->type)) {
    if (Result<void> served = ServeAnnouncement(dir, spec, record, pid, *outcome); !served) {
      return Abandon(pid, std::move(served).error());
    }
    RETURN_IF_ERROR(ours.Send(runtime::MessageType::kProceed));
    outcome = ours.Receive();
  }
  if (outcome || outcome.error().code != EPIPE) {
    ::waitpid(pid, nullptr, 0);
    if (outcome) return Fail(outcome->text);
    return tl::unexpected(outcome.error());
  }
  if (!options.pid_file.empty()) {
    // A caller that cannot learn the pid cannot manage the process either.
    if (Result<void> written = WriteFileAtomic(options.pid_file, StrCat(pid), 0644,
                                               /*overwrite=*/true, Durability::kSkipFsync);
        !written) {
      return Abandon(pid, std::move(written).error());
    }
  }
  if (options.detach) return 0;
  dir.Unlock();  // other verbs (kill, state) must not wait behind a long exec
  if (own_console) {
    Result<UniqueFd> master = own_console->Receive();
    if (!master) {
      return Abandon(pid, std::move(master).error());
    }
    return runtime::RelayTerminal(master->Get(), pid);
  }
  return runtime::WaitForwardingSignals(pid);
}

}  // namespace vigil::lifecycle
