// Socket options and control messages that send a packet to another
// address before the destination the call names: IPv4 options (a loose or
// strict source route) and IPv6 routing headers (segment routing, type 2
// and 3). Under an egress allow-list the destination decided on would not
// be where the packet goes first, so they are refused (EPERM) whatever
// they hold: judging each hop would mean parsing what the kernel parses
// again, and no ordinary client sets them.
#pragma once

#include <vector>

namespace vigil::sentry {

// setsockopt(level, name): IP_OPTIONS, IPV6_RTHDR, and IPV6_2292PKTOPTIONS
// (sticky options given as control messages, a routing header among them).
bool RoutesElsewhere(int level, int name);

// Whether sendmsg's `control` (as the workload wrote it) holds IP_RETOPTS
// (IPv4 options for this message) or an IPv6 routing header (IPV6_RTHDR,
// IPV6_2292RTHDR). Malformed headers end the walk: the kernel refuses them
// before it sends anything.
bool ControlRoutesElsewhere(const std::vector<char>& control);

}  // namespace vigil::sentry
