#include "shim/sentry_sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "base/log.h"
#include "base/strings.h"
#include "base/unique_fd.h"
#include "runtime/linux/devices.h"

namespace vigil::shim {
namespace {

// Unix98 pseudo-terminal slaves (/dev/pts/N).
constexpr unsigned kPtsMajor = 136;

// The container's hostname and domainname, read live in its UTS namespace:
// the supervisor steps in for one uname(2) and back out, so that nothing
// else it runs (hooks) sees the container's names.
class UtsReader {
 public:
  static Result<std::shared_ptr<UtsReader>> Open(pid_t init_pid) {
    UniqueFd container(::open(StrCat("/proc/", init_pid, "/ns/uts").c_str(), O_RDONLY | O_CLOEXEC));
    if (!container) return FailErrno("open the container's UTS namespace");
    UniqueFd own(::open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC));
    if (!own) return FailErrno("open the supervisor's UTS namespace");
    return std::make_shared<UtsReader>(std::move(container), std::move(own));
  }

  UtsReader(UniqueFd container, UniqueFd own)
      : container_(std::move(container)), own_(std::move(own)) {}

  Result<utsname> Read() const {
    if (::setns(container_.Get(), CLONE_NEWUTS) != 0) {
      return FailErrno("enter the container's UTS namespace");
    }
    utsname names{};
    const int rc = ::uname(&names);
    const int err = errno;
    if (::setns(own_.Get(), CLONE_NEWUTS) != 0) {
      log::Error(StrCat("the supervisor could not leave the container's UTS namespace: ",
                        std::strerror(errno)));
    }
    if (rc != 0) return FailErrno(err, "uname");
    return names;
  }

 private:
  UniqueFd container_;
  UniqueFd own_;
};

// The devices the container was given: the default ones, linux.devices,
// and its terminals (/dev/pts/*, /dev/ptmx, /dev/tty, /dev/console).
std::function<bool(mode_t, dev_t)> DeviceAllowList(const config::Spec& spec) {
  static const std::vector<config::Device> kNone;
  struct Node {
    mode_t type;
    dev_t device;
  };
  std::vector<Node> nodes;
  for (const config::Device& d : runtime::DevicesFor(spec.linux_spec ? spec.linux_spec->devices : kNone)) {
    const mode_t type = d.type == "b" ? S_IFBLK : S_IFCHR;
    nodes.push_back({type, makedev(static_cast<unsigned>(d.major), static_cast<unsigned>(d.minor))});
  }
  for (unsigned minor : {0u, 1u, 2u}) nodes.push_back({S_IFCHR, makedev(5, minor)});
  return [nodes = std::move(nodes)](mode_t type, dev_t device) {
    if (type == S_IFCHR && major(device) == kPtsMajor) return true;
    for (const Node& node : nodes) {
      if (node.type == type && node.device == device) return true;
    }
    return false;
  };
}

}  // namespace

Result<sentry::Sandbox> SentrySandbox(const std::string& id, const config::Spec& spec,
                                      const config::Policy& policy, pid_t init_pid,
                                      std::uint64_t init_start,
                                      const runtime::cgroup::Cgroup& cgroup) {
  ASSIGN_OR_RETURN(std::shared_ptr<UtsReader> uts, UtsReader::Open(init_pid));
  sentry::Sandbox sandbox;
  sandbox.container_id = id;
  sandbox.policy = &policy;
  sandbox.own_network =
      spec.linux_spec && spec.linux_spec->FindNamespace(config::NamespaceType::kNetwork) != nullptr;
  sandbox.user_namespace =
      spec.linux_spec && spec.linux_spec->FindNamespace(config::NamespaceType::kUser) != nullptr;
  sandbox.device_allowed = DeviceAllowList(spec);
  if (auto it = spec.annotations.find(std::string(kKernelReleaseAnnotation));
      it != spec.annotations.end()) {
    sandbox.kernel_release = it->second;
  }
  sandbox.started_after_boot = init_start / static_cast<std::uint64_t>(::sysconf(_SC_CLK_TCK));
  sandbox.uts_names = [uts] { return uts->Read(); };
  sandbox.memory = [&cgroup]() -> Result<sentry::ContainerMemory> {
    ASSIGN_OR_RETURN(runtime::cgroup::Stats stats, cgroup.ReadStats());
    sentry::ContainerMemory memory;
    if (stats.memory) {
      memory.usage = stats.memory->usage;
      if (stats.memory->limit != 0) memory.limit = stats.memory->limit;
    }
    return memory;
  };
  sandbox.process_count = [&cgroup]() -> Result<std::uint32_t> {
    ASSIGN_OR_RETURN(std::vector<pid_t> pids, cgroup.Processes());
    return static_cast<std::uint32_t>(pids.size());
  };
  return sandbox;
}

}  // namespace vigil::shim
