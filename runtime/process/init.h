// The container init: the process the supervisor clones into the new
// namespaces. It builds the container's world, becomes the configured user
// under its filters (the sentry's handed over), reports ready, waits for
// `start` and execs process.args — or, when startContainer hooks or the
// profile need it, waits for `start` before becoming the user.
//
// It runs in a child the supervisor clones while it is still single-threaded
// (its audit writer starts later), so allocating here is safe (no lock can
// be held by a thread that does not exist in the child);
// what must not happen is a failure without a word: every error goes back to
// the supervisor as one line before the init exits.
#pragma once

#include <string>
#include <vector>

#include "config/oci/spec.h"
#include "config/policy/landlock_rules.h"
#include "runtime/process/channel.h"
#include "runtime/process/launch.h"
#include "seccomp/profile.h"

namespace vigil::runtime {

struct InitOptions {
  bool no_pivot = false;
  int console_socket = -1;  // connected --console-socket, for process.terminal
  // What the init loads before its exec (ProcessFilters::Launch); the
  // channel is the init's own.
  LaunchOptions launch;
  std::vector<int> bind_sources;        // RootfsOptions::bind_sources, inherited descriptors
  std::vector<std::string> premounted;  // RootfsOptions::premounted
};

[[noreturn]] void RunContainerInit(const config::Spec& spec, const Channel& channel,
                                   const InitOptions& options);

}  // namespace vigil::runtime
