#include "runtime/container/remove.h"

#include <signal.h>

#include <vector>

#include "base/log.h"
#include "base/strings.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/engine_scratch.h"
#include "runtime/linux/namespaces.h"

namespace vigil::runtime {
namespace {

Result<void> RemoveCgroup(const cgroup::Cgroup& cg, const Result<config::Spec>& spec,
                          const std::string& id) {
  bool own_pid_namespace =
      spec && spec->linux_spec && CreatesNamespace(*spec->linux_spec, config::NamespaceType::kPid);
  Result<std::vector<pid_t>> left = cg.Processes();
  if (left && !own_pid_namespace) {
    for (pid_t pid : *left) ::kill(pid, SIGKILL);
  }
  Result<void> destroyed = cg.Destroy();
  if (!destroyed && own_pid_namespace && left && !left->empty()) {
    log::Warning(StrCat("container ", Quote(id), ": its cgroup stays: ", left->size(),
                        " process(es) that were there before it still run in it"));
    return {};
  }
  RETURN_IF_ERROR_WRAP(std::move(destroyed),
                       StrCat("container ", Quote(id), ": remove its cgroup"));
  return {};
}

}  // namespace

Result<void> RemoveCgroupAndState(StateDir& dir, const ContainerRecord& record,
                                  const std::optional<cgroup::Cgroup>& cg,
                                  const Result<config::Spec>& spec) {
  UnmountEngineScratch(record.rootfs, record.engine_scratch);
  if (cg) RETURN_IF_ERROR(RemoveCgroup(*cg, spec, dir.id()));
  return dir.Remove();
}

Result<void> RemoveStoppedContainer(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(StateDir dir, StateDir::Open(root, id));
  ASSIGN_OR_RETURN(ContainerRecord record, dir.LoadRecord());
  ASSIGN_OR_RETURN(std::optional<cgroup::Cgroup> cg, ContainerCgroup(record));
  return RemoveCgroupAndState(dir, record, cg, dir.LoadConfig());
}

}  // namespace vigil::runtime
