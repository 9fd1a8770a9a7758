#include "runtime/process/init.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "config/oci/sysctl.h"
#include "runtime/linux/loopback.h"
#include "runtime/linux/namespaces.h"
#include "runtime/linux/rootfs.h"
#include "runtime/linux/scheduling.h"
#include "runtime/linux/session.h"
#include "runtime/process/console.h"
#include "runtime/process/hooks.h"
#include "runtime/process/launch.h"
#include "seccomp/profile.h"

namespace vigil::runtime {
namespace {

Result<void> SetUtsNames(const config::Spec& spec) {
  if (!spec.hostname.empty() && ::sethostname(spec.hostname.data(), spec.hostname.size()) != 0) {
    return FailErrno(StrCat("set hostname ", Quote(spec.hostname)));
  }
  if (!spec.domainname.empty() &&
      ::setdomainname(spec.domainname.data(), spec.domainname.size()) != 0) {
    return FailErrno(StrCat("set domainname ", Quote(spec.domainname)));
  }
  return {};
}

Result<void> WriteSysctls(const config::Linux& linux_spec) {
  for (const auto& [key, value] : linux_spec.sysctl) {
    // Validation refused keys without a path.
    std::string path = "/proc/sys/" + config::SysctlRelativePath(key).value_or(key);
    RETURN_IF_ERROR_WRAP(WriteExisting(path, value), StrCat("sysctl ", key));
  }
  return {};
}

// Whether `mappings` give the namespace an `id`.
bool MapsId(const std::vector<config::IdMapping>& mappings, std::uint32_t id) {
  return std::any_of(mappings.begin(), mappings.end(), [id](const config::IdMapping& m) {
    return id >= m.container_id && id - m.container_id < m.size;
  });
}

// Everything up to "ready": the parts that can fail because of the config,
// so that `create` (not `start`) reports them.
Result<std::string> Prepare(const config::Spec& spec, const Channel& channel,
                            const InitOptions& options, config::State* state) {
  static const config::Linux kNoLinux;
  const config::Linux& linux_spec = spec.linux_spec ? *spec.linux_spec : kNoLinux;
  const config::Process& process = *spec.process;

  RETURN_IF_ERROR(channel.Expect(MessageType::kProceed));
  bool new_user_ns = CreatesUserNamespace(linux_spec);
  if (new_user_ns && MapsId(linux_spec.uid_mappings, 0) && MapsId(linux_spec.gid_mappings, 0)) {
    // Become the namespace's root, which the maps just written made possible.
    // A namespace that maps only its user's own ids (`vigil do` as a user)
    // has no root: the init keeps the full capabilities its namespace gave
    // it, as whatever id it is there, until it becomes the process's user.
    if (::setresgid(0, 0, 0) != 0 || ::setresuid(0, 0, 0) != 0) {
      return FailErrno("become root in the user namespace");
    }
  }
  RETURN_IF_ERROR(JoinNamespaces(linux_spec));
  RETURN_IF_ERROR(UnshareLate(linux_spec));
  if (CreatesNamespace(linux_spec, config::NamespaceType::kNetwork)) {
    RETURN_IF_ERROR(BringUpLoopback());
  }
  RETURN_IF_ERROR(LeaveTerminalSession());
  RETURN_IF_ERROR(SetUtsNames(spec));
  if (process.oom_score_adj) {
    RETURN_IF_ERROR_WRAP(WriteExisting("/proc/self/oom_score_adj", StrCat(*process.oom_score_adj)),
                         StrCat("set oomScoreAdj ", *process.oom_score_adj));
  }
  RootfsOptions rootfs{
      .no_pivot = options.no_pivot,
      // Also root of a user namespace the runtime was started in (podman
      // as a user): mknod is refused there too.
      .in_user_namespace = new_user_ns || !IsHostRoot(),
      .in_cgroup_namespace = linux_spec.FindNamespace(config::NamespaceType::kCgroup) != nullptr,
      .bind_sources = options.bind_sources,
      .premounted = options.premounted};
  RETURN_IF_ERROR(MountRootfs(spec, rootfs));
  // The supervisor runs prestart and createRuntime hooks now, in the
  // runtime's namespaces, and sends the state the hooks see.
  RETURN_IF_ERROR(channel.Send(MessageType::kMounted));
  ASSIGN_OR_RETURN(Message proceed, channel.Expect(MessageType::kProceed));
  ASSIGN_OR_RETURN(*state, config::ParseState(proceed.text));
  // createContainer hooks run in the container's mount namespace before
  // the root is entered, from the rootfs as runc runs them: they reach
  // it by relative paths ("./lib").
  if (!HooksOf(spec, "createContainer").empty() && ::chdir(spec.root->path.c_str()) != 0) {
    return FailErrno(StrCat("chdir to the rootfs ", spec.root->path));
  }
  RETURN_IF_ERROR(RunHooks("createContainer", HooksOf(spec, "createContainer"), *state));
  RETURN_IF_ERROR(EnterRootfs(spec, rootfs));
  RETURN_IF_ERROR(WriteSysctls(linux_spec));
  RETURN_IF_ERROR(FinishRootfs(spec));
  if (process.terminal) {
    RETURN_IF_ERROR(SetupConsole(options.console_socket, process.console_size, process.user.uid));
  }
  if (linux_spec.personality) RETURN_IF_ERROR(ApplyPersonality(*linux_spec.personality));
  return PrepareProcess(process);
}

// Whether the init can become the container's process at create and wait
// for `start` only before its exec, as runc's init waits on its exec fifo:
// `start` then has the exec alone left, so a warm pool's sandbox starts at
// once, and whatever can fail fails at create. Not with startContainer
// hooks, which run between `start` and the user switch, nor when the OCI
// profile, loaded by then, might refuse the wait's recvmsg.
bool BecomesProcessAtCreate(const config::Spec& spec) {
  if (!HooksOf(spec, "startContainer").empty()) return false;
  if (!spec.linux_spec || !spec.linux_spec->seccomp) return true;
  return seccomp::AllowsUnconditionally(*spec.linux_spec->seccomp, "recvmsg");
}

}  // namespace

void RunContainerInit(const config::Spec& spec, const Channel& channel,
                      const InitOptions& options) {
  // If the supervisor dies, so does the container: nothing runs unwatched.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // The supervisor blocks the signals it forwards; the workload gets a clean
  // mask and default dispositions.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // The debug lines name each step as runc's do, which its users grep.
  log::Debug("nsexec container setup: the init is in its namespaces");
  config::State state;
  Result<std::string> executable = Prepare(spec, channel, options, &state);
  if (!executable) channel.ExitWithError(executable.error(), 1);
  log::Debug(StrCat("child process in init(): rootfs and process prepared, ", *executable));
  bool started = false;
  auto await_start = [&]() -> Result<void> {
    RETURN_IF_ERROR(channel.Send(MessageType::kReady));
    // An error here: the supervisor is gone or changed its mind.
    RETURN_IF_ERROR(channel.Expect(MessageType::kStart));
    started = true;
    log::Debug("init: closing the pipe to signal completion: started, the exec is next");
    return {};
  };
  LaunchOptions launch = options.launch;
  launch.channel = &channel;
  Result<void> launched;
  if (BecomesProcessAtCreate(spec)) {
    launch.before_exec = await_start;
    launched = BecomeAndExec(*spec.process, *executable, launch);
  } else {
    launched = await_start();
    state.status = config::ContainerStatus::kCreated;
    if (launched) {
      std::optional<seccomp::CompiledFilter> profile;
      if (launch.seccomp != nullptr) {
        profile = *launch.seccomp;
        profile->has_notify = false;
      }
      launched = RunHooks("startContainer", HooksOf(spec, "startContainer"), state,
                          HookPlacement{.profile = profile ? &*profile : nullptr});
    }
    if (launched) launched = BecomeAndExec(*spec.process, *executable, launch);
  }
  channel.ExitWithError(launched.error(), started ? 127 : 1);
}

}  // namespace vigil::runtime
