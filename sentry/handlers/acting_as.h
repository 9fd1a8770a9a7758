// The sentry acting with a workload thread's credentials (DESIGN.md §2
// rule 6): for as long as an ActingAs lives, the supervisor's filesystem
// uid and gid, supplementary groups, effective capabilities and umask are
// the thread's, so the kernel checks permissions as it would for the
// workload. The supervisor is single-threaded: these are its own, per-thread
// credentials, restored when the ActingAs ends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "sentry/core/thread_status.h"

namespace vigil::sentry {

class ActingAs {
 public:
  // `in_user_namespace`: the workload's capabilities are its user
  // namespace's, worth nothing on the host's files; none are kept then.
  static Result<ActingAs> Begin(const ThreadStatus& thread, bool in_user_namespace);
  ActingAs(ActingAs&& other) noexcept;
  ActingAs& operator=(ActingAs&&) = delete;
  ~ActingAs();

 private:
  ActingAs() = default;
  bool active_ = false;
  std::vector<gid_t> groups_;
  std::uint64_t effective_ = 0;
  std::uint64_t permitted_ = 0;
  std::uint64_t inheritable_ = 0;
  mode_t umask_ = 0;
  uid_t fsuid_ = 0;
  gid_t fsgid_ = 0;
};

}  // namespace vigil::sentry
