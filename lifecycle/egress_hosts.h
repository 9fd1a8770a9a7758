// Egress allow entries by DNS name ({"host": "pypi.org", "ports": [443]}):
// resolved once, when the container is created, in the runtime's own
// network view (the host's resolver), into one rule per address, each
// keeping the name so the audit can say where an address came from. The
// sentry then judges addresses only, as for any "cidr" entry. A name whose
// addresses change later (a CDN's) keeps the ones it had at create: a
// platform that needs the new ones makes a new sandbox, or allows a block.
#pragma once

#include "base/result.h"
#include "config/policy/policy.h"

namespace vigil::lifecycle {

// Replaces each unresolved name rule of `policy` by its addresses (IPv4 /32,
// IPv6 /128, ports kept, duplicates once). Fails with one line naming the
// rule (policy.network.allow[I].host) when a name does not resolve.
Result<void> ResolveEgressHosts(config::Policy& policy);

}  // namespace vigil::lifecycle
