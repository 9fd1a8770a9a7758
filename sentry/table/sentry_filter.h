// The sentry's seccomp filter, compiled from the syscall table.
//
// Layout: the architecture check comes first (any other architecture, and
// x32 numbers on x86_64, kill the process); then, per syscall: fast -> ALLOW
// (with its guard's argument checks), mediated -> USER_NOTIF (TRACE on the
// ptrace platform, FilterOptions::traced), denied ->
// ERRNO(deny_errno). A number the table does not know gets ENOSYS, as from a
// kernel that lacks it, so a syscall newer than the table fails closed.
//
// How it composes with linux.seccomp: both filters are installed, and for
// every syscall the kernel takes the stricter verdict (KILL > TRAP > ERRNO >
// USER_NOTIF > TRACE > ALLOW). The OCI profile can only take away, never
// give back what the sentry denies or mediates.
#pragma once

#include "base/result.h"
#include "config/policy/policy.h"
#include "runtime/linux/seccomp_filter.h"
#include "sentry/core/platform.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

// The program, to be loaded with runtime::LoadSeccomp, which adds
// SECCOMP_FILTER_FLAG_NEW_LISTENER; WAIT_KILLABLE_RECV is set so that a
// notified task cannot be interrupted by a signal after the sentry has
// received its notification (a handler is never half-applied).
// `options` turn on the policy-scoped mediation (FilterOptions).
Result<runtime::CompiledFilter> BuildSentryFilter(const FilterOptions& options);

// What `policy` needs mediated: the network syscalls when it restricts
// egress or unix sockets, the open family when it restricts files; and how,
// on `platform`.
FilterOptions FilterOptionsFor(const config::Policy& policy,
                               Platform platform = Platform::kUnotify);

// Whether `platform` can enforce `policy`; if not, one line that says why.
// The ptrace platform cannot hand the workload a file the sentry opened
// (that takes SECCOMP_IOCTL_NOTIF_ADDFD), so it refuses policies that
// mediate files.
Result<void> PlatformSupports(const config::Policy& policy, Platform platform);

}  // namespace vigil::sentry
