// The lifecycle verbs that take a container id: start, state, kill, delete.
#include <cstdio>
#include <optional>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "cli/container_json.h"
#include "cli/verbs.h"
#include "config/oci/spec.h"
#include "lifecycle/lifecycle.h"
#include "lifecycle/signals.h"

namespace vigil::cli {
namespace {

// The single container id every verb here takes first.
Result<std::string> ContainerId(const Invocation& invocation, std::size_t max_args) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("container id required");
  if (args.size() > max_args) return Fail(StrCat("unexpected argument ", Quote(args[max_args])));
  return args[0];
}

}  // namespace

const FlagSpec kKillFlags[1] = {
    {"all", "a", false, "", "send the signal to every process of the container"},
};

const FlagSpec kPauseFlags[1] = {
    {"release-memory", "", false, "",
     "then push the container's memory out of RAM (to swap, page cache dropped); also the "
     "annotation dev.vigil.pause-release-memory=true"},
};

const FlagSpec kDeleteFlags[1] = {
    {"force", "f", false, "", "kill a running container before deleting it"},
};

Result<int> RunStart(const Invocation& invocation) {
  ASSIGN_OR_RETURN(std::string id, ContainerId(invocation, 1));
  RETURN_IF_ERROR(lifecycle::StartContainer(invocation.global.root, id));
  return 0;
}

Result<int> RunKill(const Invocation& invocation) {
  ASSIGN_OR_RETURN(std::string id, ContainerId(invocation, 2));
  const auto& args = invocation.flags.positional;
  ASSIGN_OR_RETURN(int sig, lifecycle::ParseSignal(args.size() > 1 ? args[1] : "SIGTERM"));
  RETURN_IF_ERROR(
      lifecycle::KillContainer(invocation.global.root, id, sig, invocation.flags.IsSet("all")));
  return 0;
}

Result<int> RunDelete(const Invocation& invocation) {
  ASSIGN_OR_RETURN(std::string id, ContainerId(invocation, 1));
  RETURN_IF_ERROR(
      lifecycle::DeleteContainer(invocation.global.root, id, invocation.flags.IsSet("force")));
  return 0;
}

Result<int> RunPause(const Invocation& invocation) {
  ASSIGN_OR_RETURN(std::string id, ContainerId(invocation, 1));
  RETURN_IF_ERROR(lifecycle::PauseContainer(
      invocation.global.root, id,
      invocation.flags.IsSet("release-memory") || invocation.global.pause_release_memory));
  return 0;
}

Result<int> RunResume(const Invocation& invocation) {
  ASSIGN_OR_RETURN(std::string id, ContainerId(invocation, 1));
  RETURN_IF_ERROR(lifecycle::ResumeContainer(invocation.global.root, id));
  return 0;
}

Result<int> RunState(const Invocation& invocation) {
  ASSIGN_OR_RETURN(std::string id, ContainerId(invocation, 1));
  ASSIGN_OR_RETURN(lifecycle::ContainerView view,
                   lifecycle::ViewContainer(invocation.global.root, id));
  json::Writer w(json::Writer::Style::kPretty);
  // A paused container's memory, where the platform keeping it idle looks
  // (pause --release-memory).
  const std::optional<lifecycle::PausedMemory> memory =
      lifecycle::MemoryIfPaused(invocation.global.root, view.record);
  WriteContainerView(w, view, /*detailed=*/true, memory ? &*memory : nullptr);
  std::fputs(w.Take().c_str(), stdout);
  return 0;
}

}  // namespace vigil::cli
