// The OCI state document (runtime-spec runtime.md "State"): what `state`
// prints and what hooks read on stdin.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/oci/names.h"

namespace vigil::config {

// The spec's four statuses plus "paused", which runc reports and its
// callers (containerd, podman) expect.
enum class ContainerStatus { kCreating, kCreated, kRunning, kPaused, kStopped };

template <>
struct NameTable<ContainerStatus> {
  static constexpr std::pair<std::string_view, ContainerStatus> kEntries[] = {
      {"creating", ContainerStatus::kCreating}, {"created", ContainerStatus::kCreated},
      {"running", ContainerStatus::kRunning},   {"paused", ContainerStatus::kPaused},
      {"stopped", ContainerStatus::kStopped},
  };
};

struct State {
  std::string oci_version;
  std::string id;
  ContainerStatus status = ContainerStatus::kCreating;
  int pid = 0;  // 0 when there is no process (creating, stopped)
  std::string bundle;
  std::map<std::string, std::string> annotations;
  bool operator==(const State&) const = default;
};

Result<State> ParseState(std::string_view text);
std::string DumpState(const State& state);

// What a seccomp agent receives with the listener (runtime-spec
// config-linux.md "containerProcessState"): the process the listener
// belongs to, the profile's listenerMetadata and the container's state.
// The one descriptor sent alongside is named "seccompFd" in `fds`.
struct ContainerProcessState {
  std::string oci_version;
  int pid = 0;
  std::string metadata;
  State state;
};

std::string DumpContainerProcessState(const ContainerProcessState& process_state);

}  // namespace vigil::config
