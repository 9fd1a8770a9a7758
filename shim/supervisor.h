// The per-container supervisor. Its pid is the one `create` writes to
// --pid-file, so to its parent (containerd's shim, conmon) it must look like
// the container's main process: it forwards the signals it gets to the init,
// and when the init exits it exits the same way (same code, or the same
// fatal signal).
#pragma once

#include "config/oci/spec.h"
#include "config/policy/policy.h"
#include "runtime/container/record.h"
#include "runtime/container/state_dir.h"
#include "runtime/process/channel.h"
#include "runtime/process/init.h"

namespace vigil::shim {

struct SupervisorArgs {
  runtime::StateDir dir;
  runtime::ContainerRecord record;
  config::Spec spec;
  runtime::InitOptions init;
  config::Policy policy;  // the sentry's
  bool systemd_cgroup = false;  // linux.cgroupsPath is "slice:prefix:name"
  // The JSON path of the first limit the config itself sets (not the
  // policy's defaults); empty for none. A user's container that may not
  // make its cgroup fails on it (Supervisor::CreateCgroup).
  std::string config_limit;
  // Created by a foreground `vigil run`, which waits for the container:
  // the client's end or stop signal ends it (supervisor_ending.cc), and
  // unless `keep` its state goes with it when the client could not delete it.
  bool foreground = false;
  bool keep = false;
  // `vigil do`: the client's SIGINT (Ctrl-C) ends the container as its
  // SIGTERM does, even a command that ignores it as pid 1 of its namespace.
  bool interrupt_ends = false;
};

// Runs in the child `create` forks. Reports kCreated (or kError) on
// `to_create`, then supervises until the init exits. Never returns.
[[noreturn]] void RunSupervisor(SupervisorArgs args, runtime::Channel to_create);

}  // namespace vigil::shim
