// linux.seccomp: the OCI profile compiled to a classic BPF program with
// libseccomp 2.5.4 and loaded with raw seccomp(2) (docs/design.md, rule 8).
//
// Compile in the runtime, before clone(); the container init then loads the
// program with one system call just before execve. Where to load it:
// runc loads it as the last step before exec when no_new_privs is set, and
// before dropping capabilities otherwise (loading needs no_new_privs or
// CAP_SYS_ADMIN), in which case the profile must allow what the init still
// does (setgroups, setres[ug]id, capset, prctl, close_range, execve).
#pragma once

#include <linux/filter.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/oci/seccomp.h"

namespace vigil::seccomp {

// A profile ready for seccomp(SECCOMP_SET_MODE_FILTER).
struct CompiledFilter {
  std::vector<sock_filter> program;
  // SECCOMP_FILTER_FLAG_* from linux.seccomp.flags, as seccomp(2) takes them,
  // except NEW_LISTENER, which LoadSeccomp adds when `has_notify`.
  unsigned int flags = 0;
  // Some rule's action is SCMP_ACT_NOTIFY: loading creates a listener fd.
  bool has_notify = false;
  // Names from linux.seccomp.syscalls[].names that libseccomp does not know
  // (newer than the library, or not a syscall at all), in profile order,
  // without duplicates. Their rules were left out, as runc does: the caller
  // should log them as a warning.
  std::vector<std::string> skipped_names;
};

// Compiles `profile`:
// - defaultAction (+ defaultErrnoRet, EPERM when absent); a syscall from an
//   architecture the filter does not cover kills the process.
// - The native architecture is always included; each of `architectures` is
//   added (an error names linux.seccomp.architectures[i] if libseccomp does
//   not know it or cannot mix it with the native one).
// - Each rule is added for each of its names; a rule whose action equals the
//   default action is skipped (libseccomp refuses it, and it changes nothing).
// - args: conditions on distinct argument indexes form one rule (ANDed). If
//   two conditions share an index, libseccomp cannot AND them, so, like runc,
//   every condition of that rule becomes a rule of its own (ORed).
//   SCMP_CMP_MASKED_EQ takes `value` as the mask and `valueTwo` as the datum.
// - Actions: SCMP_ACT_KILL is KILL_THREAD; ERRNO and TRACE take errnoRet
//   (EPERM when absent; ERRNO's must be below 4095, TRACE's fit 16 bits).
// - flags: TSYNC, LOG, SPEC_ALLOW and WAIT_KILLABLE_RECV go to seccomp(2) as
//   they are, except that WAIT_KILLABLE_RECV is dropped when no rule notifies
//   (it only changes how a listener waits, and the kernel refuses it without
//   one), and TSYNC with a listener adds TSYNC_ESRCH (the kernel refuses the
//   pair otherwise).
// Errors name the JSON path: "linux.seccomp.syscalls[3].args[0].index: ...".
Result<CompiledFilter> CompileSeccomp(const config::Seccomp& profile);

// Whether `profile` lets `syscall` through whatever its arguments: every
// rule naming it lets it through (allow or log), one without conditions, or
// none names it and the default action lets it through. A caller that must
// make that call under the profile asks first.
bool AllowsUnconditionally(const config::Seccomp& profile, std::string_view syscall);

// Installs `filter` on the calling thread (on every thread with TSYNC) with
// seccomp(SECCOMP_SET_MODE_FILTER). Needs no_new_privs or CAP_SYS_ADMIN.
// Returns the listener fd (close-on-exec) when `filter.has_notify`, an empty
// UniqueFd otherwise. Allocates only to report an error.
Result<UniqueFd> LoadSeccomp(const CompiledFilter& filter);

}  // namespace vigil::seccomp
