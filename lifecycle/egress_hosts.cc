#include "lifecycle/egress_hosts.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "base/strings.h"

namespace vigil::lifecycle {
namespace {

struct AddrinfoFree {
  void operator()(addrinfo* list) const { ::freeaddrinfo(list); }
};

Result<std::vector<config::Cidr>> Resolve(const std::string& host, std::size_t index) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;  // one entry per address, not per socket type
  addrinfo* found = nullptr;
  if (const int error = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); error != 0) {
    return Fail(StrCat("policy.network.allow[", index, "].host: ", Quote(host),
                       " does not resolve: ", ::gai_strerror(error)));
  }
  std::unique_ptr<addrinfo, AddrinfoFree> list(found);
  std::vector<config::Cidr> addresses;
  for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
    config::Cidr cidr{.family = a->ai_family};
    if (a->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      std::memcpy(cidr.address.data(), &in->sin_addr, 4);
      cidr.prefix = 32;
    } else if (a->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      std::memcpy(cidr.address.data(), &in6->sin6_addr, 16);
      cidr.prefix = 128;
    } else {
      continue;
    }
    if (std::find(addresses.begin(), addresses.end(), cidr) == addresses.end()) {
      addresses.push_back(cidr);
    }
  }
  return addresses;
}

}  // namespace

Result<void> ResolveEgressHosts(config::Policy& policy) {
  std::vector<config::EgressRule> resolved;
  for (std::size_t i = 0; i < policy.egress.size(); ++i) {
    const config::EgressRule& rule = policy.egress[i];
    if (rule.host.empty() || rule.cidr.family != AF_UNSPEC) {
      resolved.push_back(rule);
      continue;
    }
    if (rule.host.starts_with("*.")) {
      return Fail(StrCat("policy.network.allow[", i, "].host: ", Quote(rule.host),
                         " is a wildcard, which only the sandbox's own resolver follows: the "
                         "container needs a network namespace of its own"));
    }
    ASSIGN_OR_RETURN(const std::vector<config::Cidr> addresses, Resolve(rule.host, i));
    for (const config::Cidr& cidr : addresses) {
      resolved.push_back(config::EgressRule{.cidr = cidr, .ports = rule.ports, .host = rule.host});
    }
  }
  policy.egress = std::move(resolved);
  return {};
}

}  // namespace vigil::lifecycle
