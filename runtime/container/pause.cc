#include "base/strings.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/lifecycle.h"
#include "runtime/container/state_dir.h"

namespace vigil::runtime {
namespace {

Result<cgroup::Cgroup> FreezerOf(const StateDir& dir, Verb verb) {
  ASSIGN_OR_RETURN(ContainerRecord record, dir.LoadRecord());
  RETURN_IF_ERROR(CheckTransition(verb, CurrentStatus(record), dir.id()));
  ASSIGN_OR_RETURN(std::optional<cgroup::Cgroup> cg, ContainerCgroup(record));
  if (!cg) return Fail(StrCat("container ", Quote(dir.id()), " has no cgroup to freeze"));
  return std::move(*cg);
}

}  // namespace

Result<void> PauseContainer(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(StateDir dir, StateDir::Open(root, id));
  ASSIGN_OR_RETURN(cgroup::Cgroup cg, FreezerOf(dir, Verb::kPause));
  return cg.Freeze();
}

Result<void> ResumeContainer(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(StateDir dir, StateDir::Open(root, id));
  ASSIGN_OR_RETURN(cgroup::Cgroup cg, FreezerOf(dir, Verb::kResume));
  return cg.Thaw();
}

}  // namespace vigil::runtime
