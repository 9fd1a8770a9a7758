// NETLINK_ROUTE, read-only. rtnetlink refuses every message that is not a
// GET unless netlink_net_capable(skb, CAP_NET_ADMIN) holds, and for a
// message sent without a destination address that asks two credentials:
// the sender's at the time of the send, and the socket file's opener's
// (file->f_cred). The sentry opens every NETLINK_ROUTE socket the workload
// asks for, as an opener without CAP_NET_ADMIN, so the second check fails
// whatever the workload holds. A message sent with an explicit address
// (sendto, sendmsg with msg_name) skips the opener's check (the kernel's
// NETLINK_SKB_DST, since Linux 3.15): the sentry sends those itself without
// the address, which for the kernel as destination changes nothing else.
#pragma once

#include "base/result.h"
#include "sentry/handlers/destination.h"

namespace vigil::sentry {

// Whether `socket` (the sentry's duplicate of the workload's) is a netlink
// socket: what the kernel answers for a netlink destination depends on it.
bool IsNetlinkSocket(int socket);

// For a netlink destination on a netlink socket: EPERM unless it is the
// kernel (nl_pid 0, no groups) and the socket's peer is the kernel too
// (other peers are userspace, reached only with CAP_NET_ADMIN, which the
// sentry's own would lend); EINVAL for an address too short. 0 otherwise.
int NetlinkDestinationVerdict(int socket, const Destination& destination);

}  // namespace vigil::sentry
