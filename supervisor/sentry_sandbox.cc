#include "supervisor/sentry_sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "base/strings.h"
#include "base/unique_fd.h"
#include "config/oci/vigil_annotations.h"
#include "runtime/cgroup/device_rules.h"

namespace vigil::supervisor {
namespace {

// What the container's device cgroup grants (runtime::cgroup::DeviceRulesFor,
// the rules supervisor_create.cc applies).
std::function<bool(mode_t, dev_t, std::string_view)> DeviceAllowList(const config::Spec& spec) {
  std::vector<config::DeviceRule> configured;
  if (spec.linux_spec && spec.linux_spec->resources)
    configured = spec.linux_spec->resources->devices;
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

// The namespaces the deputy acts in, the user namespace first where it
// joins one: it gives the capabilities the others need.
constexpr std::pair<const char*, int> kDeputyNamespaces[] = {
    {"uts", CLONE_NEWUTS}, {"ipc", CLONE_NEWIPC}, {"net", CLONE_NEWNET}};

// Joins the namespace `name` of `init_pid` unless the caller is in it
// already; returns the caller's own when it left it, else an empty fd.
Result<UniqueFd> JoinIfOther(pid_t init_pid, const char* name, int type) {
  const std::string own_path = StrCat("/proc/thread-self/ns/", name);
  const std::string path = StrCat("/proc/", init_pid, "/ns/", name);
  struct stat own {};
  struct stat theirs {};
  if (::stat(own_path.c_str(), &own) != 0 || ::stat(path.c_str(), &theirs) != 0) {
    return FailErrno(StrCat("stat the ", name, " namespaces"));
  }
  if (own.st_ino == theirs.st_ino && own.st_dev == theirs.st_dev) return UniqueFd();
  UniqueFd left(::open(own_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!left) return FailErrno(StrCat("open the supervisor's ", name, " namespace"));
  UniqueFd ns(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns || ::setns(ns.Get(), type) != 0) {
    return FailErrno(StrCat("join the container's ", name, " namespace"));
  }
  return left;
}

}  // namespace

Result<std::vector<UniqueFd>> JoinContainerNamespaces(pid_t init_pid) {
  std::vector<UniqueFd> left;
  for (const auto& [name, type] : kDeputyNamespaces) {
    ASSIGN_OR_RETURN(UniqueFd own, JoinIfOther(init_pid, name, type));
    if (own) left.push_back(std::move(own));
  }
  return left;
}

Result<void> JoinContainerNamespacesForGood(pid_t init_pid) {
  RETURN_IF_ERROR(JoinIfOther(init_pid, "user", CLONE_NEWUSER));
  RETURN_IF_ERROR(JoinContainerNamespaces(init_pid));  // left behind for good
  return {};
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
  if (const std::string* release = spec.FindAnnotation(config::kKernelReleaseAnnotation)) {
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

}  // namespace vigil::supervisor
