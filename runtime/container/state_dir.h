// ROOT/ID: one directory per container holding its record (state.json), a
// copy of its validated config, the supervisor's control socket, and a lock
// file that serialises verbs on the container.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/strings.h"
#include "base/unique_fd.h"
#include "config/oci/spec.h"
#include "runtime/container/record.h"

namespace vigil::runtime {

// Container ids as runc accepts them: letters, digits, '_', '+', '-', '.',
// at most 1024 characters; not starting with '.' (runc takes ".x", but
// names so under the root are vigil's own: kKeptAuditDir).
Result<void> ValidateId(std::string_view id);

// The file name of the audit log in state directories of containers
// created before logs were kept apart (KeptAuditLogPath).
inline constexpr std::string_view kAuditLogName = "audit.jsonl";

// Where the audit logs that outlive their containers are: ROOT/.audit.
inline constexpr std::string_view kKeptAuditDir = ".audit";

// The sentry's audit log for container `id` unless --audit or dev.vigil.audit
// say otherwise: ROOT/.audit/ID.jsonl, kept after `delete` until `vigil
// audit --prune` removes it. A reused id appends to it.
std::string KeptAuditLogPath(const std::string& root, std::string_view id);

// Where state lives without --root: /run/vigil for the host's root; for a
// user (a rootless container), or root in another user namespace (podman
// as a user runs its runtime so), $XDG_RUNTIME_DIR/vigil, as runc uses
// $XDG_RUNTIME_DIR/runc, or without one $TMPDIR/vigil-UID (/tmp by
// default). Either way create makes it 0700 and refuses one that is not
// the user's own (StateDir::Create).
std::string DefaultStateRoot(bool host_root, uid_t euid, std::string_view xdg_runtime_dir,
                             std::string_view tmpdir);
std::string DefaultStateRoot();  // of this process, from its environment

class StateDir {
 public:
  // Creates ROOT/ID (and ROOT), failing if the container exists or ROOT is
  // not a directory of this user that nobody else may write. The new
  // directory is locked by the returned object.
  static Result<StateDir> Create(const std::string& root, const std::string& id);

  // Opens and locks an existing container's directory; waits while another
  // verb holds the lock. Fails with "container \"ID\" does not exist".
  static Result<StateDir> Open(const std::string& root, const std::string& id);

  const std::string& path() const { return path_; }
  const std::string& id() const { return id_; }
  std::string ControlSocketPath() const { return path_ + "/control.sock"; }
  // Where a sandbox's resolver answers its names (runtime/policy/
  // resolv_conf.h): the resolv.conf its workload sees, and the container's
  // own, whose nameservers the resolver asks.
  std::string ResolvConfPath() const { return path_ + "/resolv.conf"; }
  std::string UpstreamResolvConfPath() const { return path_ + "/upstream-resolv.conf"; }
  const std::string& root() const { return root_; }

  Result<ContainerRecord> LoadRecord() const;
  Result<void> SaveRecord(const ContainerRecord& record) const;
  Result<config::Spec> LoadConfig() const;
  Result<void> SaveConfig(const config::Spec& spec) const;

  // Removes the directory and everything in it.
  Result<void> Remove();

  // Gives up the lock (the directory stays) so a child process can take it.
  void Unlock() { lock_.Reset(); }

 private:
  StateDir(std::string root, std::string id, UniqueFd lock)
      : root_(std::move(root)),
        path_(StrCat(root_, "/", id)),
        id_(std::move(id)),
        lock_(std::move(lock)) {}
  std::string root_;
  std::string path_;
  std::string id_;
  UniqueFd lock_;
};

// The record of container `id` under `root`, read without taking the lock
// (for `state` and `list`, which must not wait behind a slow verb).
Result<ContainerRecord> ReadRecord(const std::string& root, const std::string& id);

}  // namespace vigil::runtime
