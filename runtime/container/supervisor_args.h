// What `create` gives the container's supervisor (shim/supervisor.h), which
// runs in the child it forks.
#pragma once

#include <string>

#include "config/oci/spec.h"
#include "runtime/container/record.h"
#include "runtime/container/state_dir.h"
#include "runtime/process/channel.h"
#include "runtime/process/init.h"

namespace vigil::runtime {

struct SupervisorArgs {
  StateDir dir;
  ContainerRecord record;
  config::Spec spec;
  InitOptions init;
  bool systemd_cgroup = false;  // linux.cgroupsPath is "slice:prefix:name"
  // The JSON path of the first limit the config itself sets (not the
  // policy's defaults); empty for none. A user's container that may not
  // make its cgroup fails on it (shim::Supervisor::CreateCgroup).
  std::string config_limit;
  // Created by a foreground `vigil run`, which waits for the container:
  // the client's end or stop signal ends it (shim/supervisor_ending.cc), and
  // unless `keep` its state goes with it when the client could not delete it.
  bool foreground = false;
  bool keep = false;
  // `vigil do`: the client's SIGINT (Ctrl-C) ends the container as its
  // SIGTERM does, even a command that ignores it as pid 1 of its namespace.
  bool interrupt_ends = false;
};

// The supervisor's entry point: runs in the child `create` forks, reports
// kCreated (or kError) on `to_create`, supervises, and never returns.
// shim::RunSupervisor, passed in by the CLI: the supervisor is a layer
// above this one.
using SupervisorMain = void (*)(SupervisorArgs args, Channel to_create);

}  // namespace vigil::runtime
