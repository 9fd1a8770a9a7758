#include "runtime/container/lifecycle.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/supervisor_control.h"

namespace vigil::runtime {

Result<void> StartContainer(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(StateDir dir, StateDir::Open(root, id));
  ASSIGN_OR_RETURN(ContainerRecord record, dir.LoadRecord());
  RETURN_IF_ERROR(CheckTransition(Verb::kStart, CurrentStatus(record), id));
  return CallSupervisor(dir.ControlSocketPath(), {.verb = ControlVerb::kStart});
}

Result<ContainerView> ViewContainer(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(ContainerRecord record, ReadRecord(root, id));
  ContainerStatus status = CurrentStatus(record);
  pid_t pid = status == ContainerStatus::kStopped ? 0 : record.init_pid;
  return ContainerView{.record = std::move(record), .status = status, .pid = pid};
}

}  // namespace vigil::runtime
