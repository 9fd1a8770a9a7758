// The container record: what vigil keeps in ROOT/ID/state.json between verbs.
// It holds the OCI state plus what only vigil needs (the supervisor's and the
// init's identities), and is written by `create` and the supervisor.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/oci/state.h"
#include "runtime/policy/compiled_policy.h"
#include "sentry/core/platform.h"

namespace vigil::runtime {

struct ContainerRecord {
  std::string id;
  std::string bundle;
  std::string rootfs;
  std::string created;  // RFC 3339 with nanoseconds, UTC
  std::string owner;    // empty for root, as runc prints it
  std::map<std::string, std::string> annotations;
  // As last recorded; CurrentStatus (status.h) corrects it for a supervisor
  // that died without saying so.
  config::ContainerStatus status = config::ContainerStatus::kCreating;
  pid_t supervisor_pid = 0;
  std::uint64_t supervisor_start = 0;
  pid_t init_pid = 0;
  std::uint64_t init_start = 0;
  // The container's cgroup directory in each hierarchy (cgroup::Cgroup).
  std::vector<std::string> cgroup_paths;
  // Where the sentry writes its audit log (JSON lines): --audit, the
  // annotation dev.vigil.audit, or audit.jsonl in the state directory.
  std::string audit_path;
  // Its rotation (sentry::audit::Rotation; audit_settings.h): 0 bytes for
  // no cap.
  std::uint64_t audit_max_bytes = 0;
  std::uint32_t audit_max_files = 1;
  // The policy as --policy or the annotation chose it (config/policy
  // DumpPolicy), its DNS names resolved: what `vigil state` shows.
  std::string policy;
  // What the policy compiler made of it for this container, which exec
  // and the supervisor read; a record written before the compiler has
  // none (exec then compiles `policy` again: CompileRecorded).
  std::optional<CompiledPolicy> compiled;
  // The sentry's backend; a record written before there was a choice has
  // none, which was unotify.
  sentry::Platform platform = sentry::Platform::kUnotify;
  // The container's timeout from its start (0: none) and the grace period
  // between the TERM and the KILL that end it then (lifetime.h).
  std::uint64_t timeout_ms = 0;
  std::uint64_t timeout_grace_ms = 0;
  // The policy's scratch tmpfs mounted in the rootfs on the host, where
  // the engine reaches them (engine_scratch.h): unmounted on delete.
  std::vector<std::string> engine_scratch;
  bool operator==(const ContainerRecord&) const = default;
};

// The OCI state hooks read on stdin. Its pid is the init's: the process in
// the container's namespaces, which network hooks enter through /proc/PID/ns.
config::State HookState(const ContainerRecord& record, config::ContainerStatus status);

Result<ContainerRecord> ParseRecord(std::string_view text);
std::string DumpRecord(const ContainerRecord& record);

}  // namespace vigil::runtime
