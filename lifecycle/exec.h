// `exec`: another process in a running container's namespaces.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/oci/process.h"

namespace vigil::lifecycle {

struct ExecOptions {
  std::string root;
  std::string id;
  config::Process process;  // complete: from --process, or built from flags
  bool detach = false;
  std::string pid_file;
  std::string console_socket;
  int preserve_fds = 0;
  // Exec into a paused container too (the process starts frozen, as the
  // rest of the container, and runs once it is resumed).
  bool ignore_paused = false;
  // `--cgroup [CONTROLLER[,...]:]SUB`: existing cgroups beneath the
  // container's to put the process in (every hierarchy without controllers).
  struct SubCgroup {
    std::vector<std::string> controllers;
    std::string path;
  };
  std::vector<SubCgroup> sub_cgroups;
};

// Starts the process. Detached, returns 0 once it runs (it is reparented to
// the caller's subreaper, containerd's shim, when we exit); otherwise waits
// and returns its exit status.
Result<int> ExecInContainer(const ExecOptions& options);

// The container's config.json process, as `exec` without --process starts
// from (user, env, cwd, capabilities, rlimits, no_new_privs).
Result<config::Process> ContainerProcess(const std::string& root, const std::string& id);

}  // namespace vigil::lifecycle
