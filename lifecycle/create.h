// `create`: from a bundle to a container whose init waits for `start`.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/oci/spec.h"

namespace vigil::lifecycle {

struct CreateOptions {
  std::string root;  // state directory (--root)
  std::string id;
  std::string bundle;
  std::string pid_file;  // optional: receives the supervisor's pid
  std::string console_socket;
  bool no_pivot = false;
  bool systemd_cgroup = false;
  int preserve_fds = 0;
  std::string policy;           // --policy; empty: the "default" profile
  std::string audit_path;       // --audit; empty: dev.vigil.audit or the state directory
  std::string audit_max_size;   // --audit-max-size; empty: the default
  std::string audit_max_files;  // --audit-max-files; empty: the default
  std::string platform;         // --platform; empty: dev.vigil.platform or "unotify"
  std::string timeout;          // run/create --timeout; empty: dev.vigil.timeout or none
  std::string global_timeout;   // the global --timeout; the shorter of the two holds
  // `run` in the foreground (without -d): the caller waits for the
  // container, which ends when the caller does or is told to stop, and is
  // deleted then unless `keep` (supervisor/supervisor.h).
  bool foreground = false;
  bool keep = false;
  bool interrupt_ends = false;  // SupervisorArgs::interrupt_ends (`vigil do`)
  // SupervisorArgs::user_network (`vigil do --net allow=`, create and run
  // --user-network)
  bool user_network = false;
  // The bundle's config when the caller loaded it already (`run`, to know
  // whether it relays the terminal); otherwise create loads it.
  std::optional<config::Spec> spec;
};

// Creates the container and returns the supervisor's pid (a child of the
// caller). On any failure nothing is left behind: no state directory, no
// process.
// The forked child runs the container's supervisor (supervisor/supervisor.h).
Result<pid_t> CreateContainer(const CreateOptions& options);

}  // namespace vigil::lifecycle
