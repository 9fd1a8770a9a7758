#include "lifecycle/create.h"

#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <filesystem>
#include <optional>

#include "base/file.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/scope_guard.h"
#include "base/strings.h"
#include "base/time.h"
#include "config/oci/config.h"
#include "config/oci/vigil_annotations.h"
#include "config/policy/policy.h"
#include "lifecycle/audit_settings.h"
#include "lifecycle/egress_hosts.h"
#include "lifecycle/lifetime.h"
#include "lifecycle/memory_release.h"
#include "lifecycle/sandbox_names.h"
#include "runtime/cgroup/attach_primer.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/path.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/engine_scratch.h"
#include "runtime/container/known_roots.h"
#include "runtime/container/state_dir.h"
#include "runtime/policy/policy_compiler.h"
#include "runtime/policy/process_filters.h"
#include "runtime/process/console.h"
#include "runtime/process/wait.h"
#include "supervisor/supervisor.h"

namespace vigil::lifecycle {
namespace {

Result<void> CheckSupported(const config::Spec& spec, const CreateOptions& options) {
  if (!spec.process) return Fail("process: required to create a container");
  // Without its own mount namespace a container would mount over the host.
  if (!spec.linux_spec || !spec.linux_spec->FindNamespace(config::NamespaceType::kMount)) {
    return Fail("linux.namespaces: a \"mount\" namespace is required");
  }
  // Security modules and features this host or vigil lacks: refused, not
  // silently dropped. runc 1.1.5 fails too when a profile or label is set
  // on a host without the module (it tries to apply it); where the module
  // is on, runc applies it and vigil cannot yet.
  if (!spec.process->apparmor_profile.empty()) {
    const bool on =
        ReadFile("/sys/module/apparmor/parameters/enabled", 8).value_or("").starts_with("Y");
    return Fail(on ? "process.apparmorProfile: AppArmor profiles are not supported by vigil yet"
                   : "process.apparmorProfile: AppArmor is not enabled on this host");
  }
  const bool labelled = !spec.process->selinux_label.empty() ||
                        (spec.linux_spec && !spec.linux_spec->mount_label.empty());
  if (labelled) {
    const bool on = ::access("/sys/fs/selinux/enforce", F_OK) == 0;
    const char* field =
        spec.process->selinux_label.empty() ? "linux.mountLabel" : "process.selinuxLabel";
    return Fail(StrCat(field, on ? ": SELinux labels are not supported by vigil yet"
                                 : ": SELinux is not enabled on this host"));
  }
  if (spec.linux_spec && spec.linux_spec->intel_rdt) {
    return Fail("linux.intelRdt: Intel RDT (resctrl) is not supported by vigil");
  }
  for (std::size_t i = 0; i < spec.mounts.size(); ++i) {
    if (!spec.mounts[i].uid_mappings.empty()) {
      return Fail(
          StrCat("mounts[", i, "].uidMappings: idmapped mounts are not supported by vigil yet"));
    }
  }
  if (spec.process->terminal && options.console_socket.empty()) {
    return Fail(
        "process.terminal is true: cannot allocate a terminal if vigil detaches without "
        "--console-socket");
  }
  if (options.user_network && !spec.linux_spec->FindNamespace(config::NamespaceType::kNetwork)) {
    return Fail("--user-network: linux.namespaces has no network namespace of the container's own");
  }
  return {};
}

// The sentry's policy: --policy (the operator's, e.g. from Docker's
// runtimeArgs), which an annotation may only repeat; without it the
// annotation (so that a pod can choose); else the "default" profile.
// The user a container belongs to, as `state` and `list` show it (runc's
// "owner"): empty for root, whose containers list as "root".
std::string OwnerName() {
  const uid_t uid = ::geteuid();
  if (uid == 0) return "";
  passwd entry{};
  passwd* found = nullptr;
  char buffer[1024];
  if (::getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return StrCat(uid);
}

Result<config::Policy> ResolvePolicy(const config::Spec& spec, const std::string& flag) {
  const std::string* annotation = spec.FindAnnotation(config::kPolicyAnnotation);
  if (flag.empty()) {
    if (annotation == nullptr) return config::BuiltinPolicy("default");
    return config::PolicyFromAnnotation(*annotation);
  }
  // --policy is the operator's (Docker's runtimeArgs, a RuntimeClass
  // handler): whoever writes the bundle may repeat it, not replace it.
  ASSIGN_OR_RETURN(config::Policy chosen, config::PolicyFromFlag(flag));
  if (annotation != nullptr) {
    ASSIGN_OR_RETURN(config::Policy asked, config::PolicyFromAnnotation(*annotation));
    if (config::DumpPolicy(asked) != config::DumpPolicy(chosen)) {
      return Fail(StrCat("annotation ", config::kPolicyAnnotation, ": asks for policy ",
                         Quote(asked.name), ", but --policy chose ", Quote(chosen.name),
                         " and an annotation cannot replace it"));
    }
  }
  return chosen;
}

// The sentry's backend: the annotation, else --platform, else unotify --
// except for a profile that hands syscalls to a seccomp agent. The kernel
// gives a process one seccomp listener: on the unotify platform it is the
// sentry's, so such a container runs on the ptrace platform, where the
// listener is the agent's. The agent then answers the syscalls it was
// given before the sentry sees them (a notifying filter outranks a
// tracing one); everything else the sentry still decides and audits.
Result<sentry::Platform> ResolvePlatform(const config::Spec& spec, const std::string& flag) {
  const bool agent = !spec.SyscallsForAgent().empty();
  std::optional<sentry::Platform> asked;
  std::string what = "--platform";
  if (const std::string* annotation = spec.FindAnnotation(config::kPlatformAnnotation)) {
    what = StrCat("annotation ", config::kPlatformAnnotation);
    ASSIGN_OR_RETURN(asked, sentry::ParsePlatform(what, *annotation));
  } else if (!flag.empty()) {
    ASSIGN_OR_RETURN(asked, sentry::ParsePlatform(what, flag));
  }
  if (agent && asked == sentry::Platform::kUnotify) {
    return Fail(StrCat(what,
                       ": the unotify platform holds the container's one seccomp listener, and "
                       "linux.seccomp hands syscalls to an agent (SCMP_ACT_NOTIFY): use ptrace"));
  }
  if (agent) return sentry::Platform::kPtrace;
  return asked.value_or(sentry::Platform::kUnotify);
}

// The bundle as runc records it: absolute, normal, without a trailing "/"
// ("." in /srv/b is "/srv/b", not "/srv/b/").
std::string BundlePath(const std::string& bundle) {
  std::filesystem::path path = std::filesystem::absolute(bundle).lexically_normal();
  if (!path.has_filename() && path.has_relative_path()) path = path.parent_path();
  return path.string();
}

// The container's cgroup in every hierarchy, if it exists, removed; errors
// only logged (the create has failed already).
void RemoveCgroupOf(const config::Spec& spec, const CreateOptions& options) {
  const std::string requested = spec.linux_spec ? spec.linux_spec->cgroups_path : "";
  Result<std::vector<runtime::cgroup::Hierarchy>> hierarchies =
      runtime::cgroup::DiscoverHierarchies();
  Result<std::string> path =
      runtime::cgroup::ResolveCgroupPath(requested, options.id, options.systemd_cgroup);
  if (!hierarchies || !path) return;
  if (Result<void> removed = runtime::cgroup::Cgroup::Open(*hierarchies, *path).Destroy();
      !removed) {
    log::Warning(StrCat("remove the cgroup of the failed container: ", removed.error().message));
  }
}

}  // namespace

Result<pid_t> CreateContainer(const CreateOptions& options) {
  // First: the grace period the init's cgroup join waits for then passes
  // while everything below runs.
  const runtime::cgroup::AttachPrimer primer = runtime::cgroup::AttachPrimer::Start();
  ASSIGN_OR_RETURN(runtime::StateDir dir, runtime::StateDir::Create(options.root, options.id));
  ScopeGuard remove_dir([&] { (void)dir.Remove(); });
  // So that `vigil audit` without --root finds it (a convenience: the
  // container does not depend on it).
  if (Result<void> remembered = runtime::RememberRoot(runtime::DefaultStateRoot(), options.root);
      !remembered) {
    log::Debug(StrCat("list the state root: ", remembered.error().message));
  }

  ASSIGN_OR_RETURN(config::Spec spec, options.spec ? Result<config::Spec>(*options.spec)
                                                   : config::LoadBundle(options.bundle));
  RETURN_IF_ERROR(CheckSupported(spec, options));
  runtime::ContainerRecord record{
      .id = options.id,
      .bundle = BundlePath(options.bundle),
      .rootfs = spec.root->path,
      .created = Rfc3339NanoNow(),
      .owner = OwnerName(),
      .annotations = spec.annotations,
      .status = config::ContainerStatus::kCreating,
  };
  // A pause-release annotation no pause could honour is refused now, not
  // at the first pause.
  RETURN_IF_ERROR(WantsMemoryRelease(record, /*asked=*/false));
  ASSIGN_OR_RETURN(config::Policy policy, ResolvePolicy(spec, options.policy));
  const runtime::HostFacts host = runtime::ThisHost();
  // Before the policy is recorded: `exec` takes the addresses create found.
  // Where the sandbox's own resolver answers its names, connects follow
  // what it answers instead, as the addresses change.
  if (!runtime::ResolverAnswersNames(policy, spec, host))
    RETURN_IF_ERROR(ResolveEgressHosts(policy));
  record.policy = config::DumpPolicy(policy);
  ASSIGN_OR_RETURN(sentry::Platform platform, ResolvePlatform(spec, options.platform));
  record.platform = platform;
  // The config's own limits, before the policy adds its defaults: a user's
  // container that may not make a cgroup fails on those only.
  const std::string config_limit(spec.linux_spec && spec.linux_spec->resources
                                     ? runtime::FirstLimitSet(*spec.linux_spec->resources)
                                     : std::string_view());
  // Once for the container: the config it shapes is saved, and what it
  // made recorded, for exec and the supervisor.
  record.compiled = runtime::CompilePolicy(std::move(policy), spec, platform, host);
  if (!record.compiled->name_resolver.empty()) {
    // Through slirp4netns the host's nameservers are its forwarder's.
    const std::optional<std::string> upstream =
        options.user_network
            ? std::optional<std::string>(StrCat("nameserver ", supervisor::kUserNetworkDns, "\n"))
            : std::nullopt;
    RETURN_IF_ERROR(PointNamesAtResolver(dir, spec, record.compiled->name_resolver, upstream));
  }
  // Before the config is saved: it may set no_new_privileges.
  const sentry::FilterOptions filter_options =
      runtime::LaunchFilterFor(*record.compiled, *spec.process);
  ASSIGN_OR_RETURN(record.audit_path,
                   ResolveAuditPath(spec, options.audit_path, dir, kAuditAnnotationDir));
  // A create that fails leaves no log of its own behind (one that had
  // records before, of an earlier container of that id, stays).
  ScopeGuard remove_empty_log([&] {
    struct stat st {};
    if (record.audit_path == runtime::KeptAuditLogPath(options.root, options.id) &&
        ::stat(record.audit_path.c_str(), &st) == 0 && st.st_size == 0) {
      ::unlink(record.audit_path.c_str());
    }
  });
  ASSIGN_OR_RETURN(const sentry::audit::Rotation rotation,
                   ResolveAuditRotation(spec, options.audit_max_size, options.audit_max_files));
  record.audit_max_bytes = rotation.max_bytes;
  record.audit_max_files = rotation.max_files;
  ASSIGN_OR_RETURN(const Lifetime lifetime,
                   ResolveLifetime(spec, options.timeout, options.global_timeout));
  record.timeout_ms = static_cast<std::uint64_t>(lifetime.timeout.count());
  record.timeout_grace_ms = static_cast<std::uint64_t>(lifetime.grace.count());
  log::Debug(StrCat("create ", options.id, ": bundle ", options.bundle, ", platform ",
                    sentry::PlatformName(record.platform), ", audit ", record.audit_path,
                    ", policy ", Quote(record.compiled->rules.name)));
  // The policy's scratch tmpfs, where an engine copies files through them
  // (not for a foreground `run`: no engine drives one, and its supervisor,
  // which removes the container when the client is killed, may not unmount).
  if (!options.foreground) {
    ASSIGN_OR_RETURN(record.engine_scratch, runtime::MountEngineScratch(spec));
  }
  ScopeGuard unmount_scratch(
      [&] { runtime::UnmountEngineScratch(spec.root->path, record.engine_scratch); });
  RETURN_IF_ERROR(dir.SaveConfig(spec));
  RETURN_IF_ERROR(dir.SaveRecord(record));

  // The init's own Landlock layers (the record moves to the supervisor).
  ASSIGN_OR_RETURN(
      std::unique_ptr<runtime::ProcessFilters> filters,
      runtime::ProcessFilters::Compile(spec, filter_options, record.compiled->landlock));
  UniqueFd console;
  if (spec.process->terminal) {
    ASSIGN_OR_RETURN(console, runtime::ConnectConsoleSocket(options.console_socket));
  }
  ASSIGN_OR_RETURN(runtime::Channel::Forked forked, runtime::Channel::Fork("the supervisor"));
  if (forked.pid == 0) {
    std::vector<std::string> premounted = record.engine_scratch;  // before record moves
    record.supervisor_pid = ::getpid();
    record.supervisor_start = ProcessStartTime(record.supervisor_pid).value_or(0);
    supervisor::RunSupervisor(
        supervisor::SupervisorArgs{.dir = std::move(dir),
                                   .record = std::move(record),
                                   .spec = std::move(spec),
                                   .init = {.no_pivot = options.no_pivot,
                                            .console_socket = console.Get(),
                                            .launch = filters->Launch(options.preserve_fds),
                                            .premounted = premounted},
                                   .systemd_cgroup = options.systemd_cgroup,
                                   .config_limit = config_limit,
                                   .foreground = options.foreground,
                                   .keep = options.keep,
                                   .interrupt_ends = options.interrupt_ends,
                                   .user_network = options.user_network},
        std::move(forked.channel));
    ::_exit(1);  // not reached: the supervisor exits on its own
  }
  const pid_t pid = forked.pid;
  const runtime::Channel& ours = forked.channel;
  Result<runtime::Message> created = ours.Expect(runtime::MessageType::kCreated);
  if (!created) {
    // The supervisor exits after reporting; reap it before removing its
    // directory so no process outlives the failed create.
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (created.error().code == EPIPE) {
      // Killed before it could report (and undo): its init died with it,
      // but the cgroup it may have made is still there.
      RemoveCgroupOf(spec, options);
      return Fail("the supervisor exited during create");
    }
    return tl::unexpected(created.error());
  }
  // The init's pid, as runc reports its own: /proc/PID is the container's
  // namespaces and cgroups to every client (docs/processes.md).
  pid_t init_pid = 0;
  std::from_chars(created->text.data(), created->text.data() + created->text.size(), init_pid);
  if (!options.pid_file.empty()) {
    Result<void> written = WriteFileAtomic(options.pid_file, StrCat(init_pid), 0644,
                                           /*overwrite=*/true, Durability::kSkipFsync);
    if (!written) {
      runtime::KillAndReap(pid);
      return tl::unexpected(written.error());
    }
  }
  remove_dir.Dismiss();
  remove_empty_log.Dismiss();
  unmount_scratch.Dismiss();
  log::Debug(StrCat("create ", options.id, ": supervisor ", pid, ", init ", init_pid));
  return pid;
}

}  // namespace vigil::lifecycle
