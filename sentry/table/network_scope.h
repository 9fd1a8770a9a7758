// When a process's network syscalls are mediated beyond what its policy
// asks: a process that may hold CAP_NET_ADMIN could reconfigure the
// network with a NETLINK_ROUTE message sent to an explicit address, which
// the kernel checks against the sender's capabilities alone
// (sentry/handlers/netlink.h); the sentry sends those itself.
#pragma once

#include "config/oci/process.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

// Whether CAP_NET_ADMIN is in `process`'s bounding set, or its sets are
// left as inherited (no capabilities object): then it may hold it.
bool MayHoldNetworkAdmin(const config::Process& process);

// `options` with the network syscalls mediated for such a process.
FilterOptions WithNetlinkReadOnly(FilterOptions options, const config::Process& process);

}  // namespace vigil::sentry
