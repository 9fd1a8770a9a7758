// What `create` gives the container's supervisor (supervisor.h), which runs
// in the child it forks.
#pragma once

#include <string>
#include <string_view>

#include "config/oci/spec.h"
#include "runtime/container/record.h"
#include "runtime/container/state_dir.h"
#include "runtime/process/init.h"

namespace vigil::supervisor {

struct SupervisorArgs {
  runtime::StateDir dir;
  runtime::ContainerRecord record;
  config::Spec spec;
  runtime::InitOptions init;
  bool systemd_cgroup = false;  // linux.cgroupsPath is "slice:prefix:name"
  // The JSON path of the first limit the config itself sets (not the
  // policy's defaults); empty for none. A user's container that may not
  // make its cgroup fails on it (Supervisor::CreateCgroup).
  std::string config_limit;
  // Created by a foreground `vigil run`, which waits for the container:
  // the client's end or stop signal ends it (supervisor/supervisor_ending.cc), and
  // unless `keep` its state goes with it when the client could not delete it.
  bool foreground = false;
  bool keep = false;
  // `vigil do`: the client's SIGINT (Ctrl-C) ends the container as its
  // SIGTERM does, even a command that ignores it as pid 1 of its namespace.
  bool interrupt_ends = false;
  // `vigil do --net allow=`: the container's own network namespace reaches
  // the host's network through slirp4netns (supervisor_user_network.cc),
  // and the sandbox's resolver asks slirp4netns's DNS forwarder.
  bool user_network = false;
};

// Where slirp4netns forwards DNS to the host's nameservers, in the
// network it gives a sandbox (its default 10.0.2.0/24).
inline constexpr std::string_view kUserNetworkDns = "10.0.2.3";

}  // namespace vigil::supervisor
