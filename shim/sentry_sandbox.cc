#include "shim/sentry_sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "base/log.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil::shim {
namespace {

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
