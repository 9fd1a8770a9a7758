// The resolv.conf files of a sandbox whose own resolver answers its names
// (docs/policy.md, "Egress by name"), made from the container's own: the
// one its workload reads names the resolver alone, and the resolver asks
// the nameservers the container would have asked.
#pragma once

#include <string>
#include <string_view>

namespace vigil::runtime {

struct SandboxResolvConf {
  // For /etc/resolv.conf in the container: the resolver as its one
  // nameserver, with the original's search domains and options (a pod's
  // search list and ndots keep working: refused names are NXDOMAIN).
  std::string workload;
  // For the resolver: the original's nameservers and options, without the
  // resolver's own address (it would ask itself).
  std::string upstream;
};

// From `original` (a resolv.conf's text) for a resolver at `resolver`.
SandboxResolvConf MakeSandboxResolvConf(std::string_view original, std::string_view resolver);

}  // namespace vigil::runtime
