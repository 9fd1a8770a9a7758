// What /proc/TID/status says about a workload thread that the file
// handlers need: its filesystem credentials (to act as it, docs/design.md
// rule 6) and its ids in its own pid namespace (to rewrite /proc/self).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vigil::sentry {

struct ThreadStatus {
  uid_t ruid = 0;  // real ids, what access(2) checks by default
  gid_t rgid = 0;
  uid_t euid = 0;  // effective ids, what a unix socket's peer is told
  gid_t egid = 0;
  uid_t suid = 0;  // saved ids, which SCM_CREDENTIALS may claim too
  gid_t sgid = 0;
  uid_t fsuid = 0;
  gid_t fsgid = 0;
  std::vector<gid_t> groups;
  std::uint64_t cap_effective = 0;
  std::uint64_t cap_permitted = 0;
  mode_t umask = 022;
  pid_t tgid = 0;     // its process, as the sentry sees it (Tgid)
  pid_t ns_tgid = 0;  // innermost NStgid
  pid_t ns_tid = 0;   // innermost NSpid
};

// Parses the text of /proc/TID/status (ids as the reader's namespaces see
// them: the sentry's, i.e. the host's).
Result<ThreadStatus> ParseThreadStatus(std::string_view text);

// The soft RLIMIT_FSIZE in /proc/PID/limits `text` ("Max file size"),
// UINT64_MAX when unlimited or not found.
std::uint64_t SoftFileSizeLimit(std::string_view text);

// SoftFileSizeLimit of thread `tid` (in the sentry's pid namespace), read
// now: /proc/TID/limits is readable by anyone, where prlimit(2) would need
// CAP_SYS_RESOURCE for another user's process.
std::uint64_t FileSizeLimitOf(pid_t tid);

// Whether /proc/TID/status `text` shows a signal the thread would take now:
// pending for it (SigPnd) or its process (ShdPnd), not blocked (SigBlk)
// and not ignored (SigIgn, or ignored by default and not caught: SigCgt). A call the sentry makes
// wait must then end as the kernel's interrupted call would (kRestartSys, verdict.h).
bool SignalDeliverable(std::string_view text);

// SignalDeliverable for thread `tid` (in the sentry's pid namespace), read
// now; false if its status cannot be read.
bool SignalDeliverableTo(pid_t tid);

}  // namespace vigil::sentry
