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
#include "seccomp/profile.h"
#include "sentry/core/platform.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

// The program, to be loaded with seccomp::LoadSeccomp, which adds
// SECCOMP_FILTER_FLAG_NEW_LISTENER; WAIT_KILLABLE_RECV is set so that a
// notified task cannot be interrupted by a signal after the sentry has
// received its notification (a handler is never half-applied).
// `options` turn on the policy-scoped mediation (FilterOptions).
Result<seccomp::CompiledFilter> BuildSentryFilter(const FilterOptions& options);

// What `policy` needs mediated: the network syscalls when it restricts
// egress or unix sockets, the open family when it restricts files; and how,
// on `platform`.
FilterOptions FilterOptionsFor(const config::Policy& policy,
                               Platform platform = Platform::kUnotify);

// The ptrace platform's second filter, loaded after the sentry's: the calls
// that could close or replace the descriptor channel (kDescriptorChannelFd)
// trace-stop when they name it, and the sentry answers them as if it were
// not open (sentry/ptrace/channel_guard.h); everything else it allows, so
// the sentry's filter decides. A filter of its own because its rules need
// "allow unless": libseccomp gives no precedence between the overlapping
// rules that would take in one filter, while across filters the kernel
// takes the stricter verdict (TRACE over ALLOW).
Result<seccomp::CompiledFilter> BuildChannelGuardFilter();

// Whether the workload's credentials must stay as they started: on the
// ptrace platform under a policy that restricts files. There the sentry
// hands a process the files it opens through a descriptor channel that all
// the threads and children of that process share, so any of them could
// take a file opened for another; that is harmless only while they all
// have the same credentials. So the setuid family and capset are refused
// (EPERM) and no_new_privileges is set: an exec cannot raise them either.
// Under a policy that restricts no file (audit-only) the kernel makes every
// file call the sentry decides (KernelMakesFileCalls in
// sentry/handlers/resolve.h): no file of a thread's passes the channel.
bool CredentialsFixed(const config::Policy& policy, Platform platform);

}  // namespace vigil::sentry
