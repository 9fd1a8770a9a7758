#include "shim/sentry_sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "base/log.h"
#include "base/strings.h"
#include "base/unique_fd.h"
#include "runtime/cgroup/device_rules.h"

namespace vigil::shim {
namespace {

// What the container's device cgroup grants (runtime::cgroup::DeviceRulesFor,
// the rules supervisor_create.cc applies).
std::function<bool(mode_t, dev_t, std::string_view)> DeviceAllowList(const config::Spec& spec) {
  std::vector<config::DeviceRule> configured;
  if (spec.linux_spec && spec.linux_spec->resources) configured = spec.linux_spec->resources->devices;
  return [rules = runtime::cgroup::DeviceRulesFor(configured)](mode_t type, dev_t device,
                                                               std::string_view access) {
    return runtime::cgroup::DeviceAccessAllowed(rules, type == S_IFBLK ? 'b' : 'c', major(device),
                                                minor(device), access);
  };
}

// The init's execution domain is the one the config sets, or else the one
// it inherited from the supervisor.
bool PersonalityMayDiffer(const config::Spec& spec) {
  if (spec.linux_spec && spec.linux_spec->personality) {
    return spec.linux_spec->personality->domain != "LINUX";
  }
  return ::personality(0xffffffff) != PER_LINUX;
}

// The config's CFS quota in whole CPUs, rounded up (`update` may change it
// later; the view keeps the one the container started with).
unsigned int CpuLimit(const config::Spec& spec) {
  if (!spec.linux_spec || !spec.linux_spec->resources || !spec.linux_spec->resources->cpu) return 0;
  const config::Cpu& cpu = *spec.linux_spec->resources->cpu;
  if (!cpu.quota || *cpu.quota <= 0) return 0;
  const std::uint64_t period = cpu.period && *cpu.period > 0 ? *cpu.period : 100000;
  return static_cast<unsigned int>((static_cast<std::uint64_t>(*cpu.quota) + period - 1) / period);
}

}  // namespace

Result<UniqueFd> JoinContainerUts(pid_t init_pid) {
  UniqueFd own(::open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC));
  if (!own) return FailErrno("open the supervisor's UTS namespace");
  UniqueFd container(::open(StrCat("/proc/", init_pid, "/ns/uts").c_str(), O_RDONLY | O_CLOEXEC));
  if (!container) return FailErrno("open the container's UTS namespace");
  if (::setns(container.Get(), CLONE_NEWUTS) != 0) return FailErrno("join the container's UTS namespace");
  return own;
}

Result<void> JoinContainerNamespacesForGood(pid_t init_pid) {
  // The user namespace first: it gives the capabilities the others need.
  for (const auto& [name, type] : {std::pair{"user", CLONE_NEWUSER}, std::pair{"uts", CLONE_NEWUTS},
                                   std::pair{"net", CLONE_NEWNET}}) {
    struct stat own {}, theirs {};
    const std::string path = StrCat("/proc/", init_pid, "/ns/", name);
    if (::stat(StrCat("/proc/self/ns/", name).c_str(), &own) != 0 ||
        ::stat(path.c_str(), &theirs) != 0) {
      return FailErrno(StrCat("stat the ", name, " namespaces"));
    }
    if (own.st_ino == theirs.st_ino && own.st_dev == theirs.st_dev) continue;
    UniqueFd ns(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!ns || ::setns(ns.Get(), type) != 0) {
      return FailErrno(StrCat("join the container's ", name, " namespace"));
    }
  }
  return {};
}

Result<std::function<Result<UniqueFd>(const std::function<Result<UniqueFd>()>&)>>
InContainerNetwork(pid_t init_pid) {
  auto own = std::make_shared<UniqueFd>(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!*own) return FailErrno("open the supervisor's network namespace");
  auto container = std::make_shared<UniqueFd>(
      ::open(StrCat("/proc/", init_pid, "/ns/net").c_str(), O_RDONLY | O_CLOEXEC));
  if (!*container) return FailErrno("open the container's network namespace");
  struct stat ours {
  }, theirs{};
  if (::fstat(own->Get(), &ours) != 0 || ::fstat(container->Get(), &theirs) != 0) {
    return FailErrno("stat the network namespaces");
  }
  if (ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino) {
    return [](const std::function<Result<UniqueFd>()>& create) { return create(); };
  }
  return [own, container](const std::function<Result<UniqueFd>()>& create) -> Result<UniqueFd> {
    if (::setns(container->Get(), CLONE_NEWNET) != 0) {
      return FailErrno("join the container's network namespace");
    }
    Result<UniqueFd> made = create();
    if (::setns(own->Get(), CLONE_NEWNET) != 0) {
      // Whatever the supervisor did next would happen in the container's.
      log::Error("the sentry could not return to its own network namespace");
      ::_exit(125);
    }
    return made;
  };
}

Result<bool> SharesHostNetwork(pid_t init_pid) {
  struct stat container {};
  if (::stat(StrCat("/proc/", init_pid, "/ns/net").c_str(), &container) != 0) {
    return FailErrno("stat the container's network namespace");
  }
  struct stat host {};
  if (::stat("/proc/self/ns/net", &host) != 0) {
    return FailErrno("stat the supervisor's network namespace");
  }
  return host.st_dev == container.st_dev && host.st_ino == container.st_ino;
}

Result<sentry::Sandbox> SentrySandbox(const std::string& id, const config::Spec& spec,
                                      const config::Policy& policy, std::uint64_t init_start,
                                      const runtime::cgroup::Cgroup* cgroup) {
  sentry::Sandbox sandbox;
  sandbox.container_id = id;
  sandbox.policy = &policy;
  sandbox.user_namespace =
      spec.linux_spec && spec.linux_spec->FindNamespace(config::NamespaceType::kUser) != nullptr;
  sandbox.device_allowed = DeviceAllowList(spec);
  if (const std::string* release = spec.FindAnnotation(kKernelReleaseAnnotation)) {
    sandbox.kernel_release = *release;
  }
  sandbox.cpu_limit = CpuLimit(spec);
  sandbox.started_after_boot = init_start / static_cast<std::uint64_t>(::sysconf(_SC_CLK_TCK));
  sandbox.personality_may_differ = PersonalityMayDiffer(spec);
  // Live and cheap: the supervisor is in the container's UTS namespace.
  sandbox.uts_names = []() -> Result<utsname> {
    utsname names{};
    if (::uname(&names) != 0) return FailErrno("uname");
    return names;
  };
  if (cgroup == nullptr) {
    sandbox.memory = []() -> Result<sentry::ContainerMemory> { return Fail("no cgroup"); };
    sandbox.process_count = []() -> Result<std::uint32_t> { return Fail("no cgroup"); };
    return sandbox;
  }
  sandbox.memory = [cgroup]() -> Result<sentry::ContainerMemory> {
    ASSIGN_OR_RETURN(runtime::cgroup::Stats stats, cgroup->ReadStats());
    sentry::ContainerMemory memory;
    if (stats.memory) {
      memory.usage = stats.memory->usage;
      memory.cache = stats.memory->cache;
      if (stats.memory->limit != 0) memory.limit = stats.memory->limit;
    }
    return memory;
  };
  sandbox.process_count = [cgroup]() -> Result<std::uint32_t> {
    ASSIGN_OR_RETURN(std::vector<pid_t> pids, cgroup->Processes());
    return static_cast<std::uint32_t>(pids.size());
  };
  return sandbox;
}

}  // namespace vigil::shim
