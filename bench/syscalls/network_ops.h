// The network operations of the probe: what egress by name costs a
// workload (docs/policy.md, "Egress by name"). Run only when asked for by
// name (`ops --ops dns_query,tcp_connect`), in a network namespace with a
// nameserver and a server (bench/benchlib/workloads/egress.py): the name
// in BENCH_NAME, answered by the first nameserver of /etc/resolv.conf,
// and a TCP server on BENCH_PORT of its address.
#pragma once

#include <cstddef>

#include "bench/syscalls/syscall_ops.h"

namespace vigil::bench {

const Op* NetworkOps(std::size_t& count);

}  // namespace vigil::bench
