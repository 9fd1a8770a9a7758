#include "lifecycle/lifecycle.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/supervisor_control.h"

namespace vigil::lifecycle {

Result<void> StartContainer(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(runtime::StateDir dir, runtime::StateDir::Open(root, id));
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, dir.LoadRecord());
  RETURN_IF_ERROR(
      runtime::CheckTransition(runtime::Verb::kStart, runtime::CurrentStatus(record), id));
  return runtime::CallSupervisor(dir.ControlSocketPath(), {.verb = runtime::ControlVerb::kStart});
}

Result<ContainerView> ViewContainer(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, runtime::ReadRecord(root, id));
  config::ContainerStatus status = CurrentStatus(record);
  pid_t pid = status == config::ContainerStatus::kStopped ? 0 : record.init_pid;
  return ContainerView{.record = std::move(record), .status = status, .pid = pid};
}

}  // namespace vigil::lifecycle
