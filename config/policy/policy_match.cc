// The decisions a policy makes: file access, egress, exec.
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "config/policy/cidr.h"
#include "config/policy/glob.h"
#include "config/policy/policy.h"

namespace vigil::config {
namespace {

// Ranges an allow entry reaches only when its block lies within them:
// loopback (the host's services, in its network namespace; a Docker
// network's embedded DNS in a container's), link-local (the cloud's
// metadata service, 169.254.169.254 and fd00:ec2::254, and whatever the
// host's links serve), the private and shared ranges the host's own
// networks use, and IPv6's unique local addresses. "0.0.0.0/0" means the
// internet, not the host itself nor its LAN.
const std::vector<Cidr>& RangesNamedOnly() {
  static const std::vector<Cidr> ranges = [] {
    std::vector<Cidr> parsed;
    for (std::string_view text :
         {"127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
          "100.64.0.0/10", "169.254.0.0/16", "fc00::/7", "fe80::/10"}) {
      parsed.push_back(*ParseCidr(text));
    }
    return parsed;
  }();
  return ranges;
}

// Whether `rule`'s block reaches `address` (4 or 16 bytes of `family`):
// holds it, and lies within any of RangesNamedOnly that holds it.
bool BlockReaches(const Cidr& block, int family, const std::uint8_t* address) {
  if (!CidrContains(block, family, address)) return false;
  for (const Cidr& range : RangesNamedOnly()) {
    if (!CidrContains(range, family, address)) continue;
    const bool within = block.family == range.family && block.prefix >= range.prefix &&
                        CidrContains(range, block.family, block.address.data());
    if (!within) return false;
  }
  return true;
}

// Whether `port` is one of `rule`'s (every port when it lists none).
bool PortsHold(const EgressRule& rule, std::uint16_t port) {
  return rule.ports.empty() ||
         std::any_of(rule.ports.begin(), rule.ports.end(), [port](const PortRange& range) {
           return port >= range.first && port <= range.last;
         });
}

// Whether an allow entry holds `address` (4 or 16 bytes of `family`) and
// `port`; with `any_port`, whatever the entry's ports.
bool RuleAllows(const EgressRule& rule, int family, const std::uint8_t* address, std::uint16_t port,
                bool any_port) {
  if (!BlockReaches(rule.cidr, family, address)) return false;
  return any_port || PortsHold(rule, port);
}

bool AddressAllowed(const Policy& policy, int family, const std::uint8_t* address,
                    std::uint16_t port, bool any_port) {
  if (!policy.egress_default_deny) return true;
  return std::any_of(policy.egress.begin(), policy.egress.end(), [&](const EgressRule& rule) {
    return RuleAllows(rule, family, address, port, any_port);
  });
}

bool DestinationAllowed(const Policy& policy, int family, const std::uint8_t* address,
                        std::uint16_t port) {
  return AddressAllowed(policy, family, address, port, /*any_port=*/false);
}

}  // namespace

bool RestrictsFiles(const Policy& policy) {
  return policy.file_default != FileAccess::kWrite ||
         std::any_of(policy.files.begin(), policy.files.end(),
                     [](const FileRule& rule) { return rule.access != FileAccess::kWrite; });
}

bool HidesOrDeniesFiles(const Policy& policy) {
  auto refuses = [](FileAccess access) {
    return access == FileAccess::kHidden || access == FileAccess::kDenied;
  };
  return refuses(policy.file_default) ||
         std::any_of(policy.files.begin(), policy.files.end(),
                     [&](const FileRule& rule) { return refuses(rule.access); });
}

bool IsBeneath(std::string_view path, std::string_view dir) {
  if (dir == "/") return true;
  return path == dir ||
         (path.starts_with(dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

bool MediatesReads(const Policy& policy) {
  return policy.observe || policy.audit == AuditLevel::kAll || HidesOrDeniesFiles(policy);
}

std::optional<std::string> MaskTarget(std::string_view pattern) {
  constexpr std::string_view kWholeTree = "/**";
  if (pattern.ends_with(kWholeTree)) pattern.remove_suffix(kWholeTree.size());
  if (pattern.empty() || pattern == "/" ||
      pattern.find_first_of("*?[\\") != std::string_view::npos) {
    return std::nullopt;
  }
  return std::string(pattern);
}

bool RefusesNoAddress(const Policy& policy) {
  return !policy.egress_default_deny && policy.unix_sockets && policy.unix_paths.empty() &&
         !HidesOrDeniesFiles(policy);
}

bool UnixPathAllowed(const Policy& policy, std::string_view resolved_path) {
  return policy.unix_paths.empty() ||
         std::any_of(policy.unix_paths.begin(), policy.unix_paths.end(),
                     [&](const std::string& glob) { return GlobMatches(glob, resolved_path); });
}

FileAccess FileAccessFor(const Policy& policy, std::string_view resolved_path) {
  for (const FileRule& rule : policy.files) {
    if (GlobMatches(rule.pattern, resolved_path)) return rule.access;
  }
  return policy.file_default;
}

// Rules in order, first match wins: the tree's access is uniform when every
// rule that may match part of it, up to the first that matches all of it
// (or the default), grants the same.
std::optional<FileAccess> UniformAccessBeneath(const Policy& policy, std::string_view dir) {
  std::optional<FileAccess> partial;
  auto agrees = [&](FileAccess access) { return !partial || *partial == access; };
  for (const FileRule& rule : policy.files) {
    switch (GlobMatchesTree(rule.pattern, dir)) {
      case TreeMatch::kNone:
        break;
      case TreeMatch::kSome:
        if (!agrees(rule.access)) return std::nullopt;
        partial = rule.access;
        break;
      case TreeMatch::kAll:
        return agrees(rule.access) ? std::optional(rule.access) : std::nullopt;
    }
  }
  return agrees(policy.file_default) ? std::optional(policy.file_default) : std::nullopt;
}

namespace {

// An IP destination as the kernel reaches it: an IPv4-mapped IPv6 address
// is the IPv4 address a dual-stack socket sends to (judged as such, or an
// IPv4 deny would be bypassed). nullopt for another family or an address
// too short for its own (the kernel accepts sockaddr_in6 without
// sin6_scope_id, RFC 2133's size).
struct IpDestination {
  int family = AF_INET;
  std::uint8_t bytes[16] = {};
  std::uint16_t port = 0;
};

std::optional<IpDestination> IpOf(const sockaddr* address, socklen_t length) {
  if (address == nullptr || length < static_cast<socklen_t>(sizeof(sa_family_t))) {
    return std::nullopt;
  }
  sa_family_t family = 0;
  std::memcpy(&family, address, sizeof family);
  IpDestination ip;
  if (family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    sockaddr_in in{};
    std::memcpy(&in, address, sizeof in);
    std::memcpy(ip.bytes, &in.sin_addr, 4);
    ip.port = ntohs(in.sin_port);
    return ip;
  }
  constexpr auto kMinLength = static_cast<socklen_t>(offsetof(sockaddr_in6, sin6_scope_id));
  if (family == AF_INET6 && length >= kMinLength) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, address, kMinLength);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&in6.sin6_addr);
    ip.port = ntohs(in6.sin6_port);
    if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {
      std::memcpy(ip.bytes, bytes + 12, 4);
    } else {
      ip.family = AF_INET6;
      std::memcpy(ip.bytes, bytes, 16);
    }
    return ip;
  }
  return std::nullopt;
}

}  // namespace

bool EgressAllowed(const Policy& policy, const sockaddr* address, socklen_t length) {
  sa_family_t family = AF_UNSPEC;
  if (address != nullptr && length >= static_cast<socklen_t>(sizeof family)) {
    std::memcpy(&family, address, sizeof family);
  }
  if (family == AF_UNIX) return policy.unix_sockets;
  if (!policy.egress_default_deny) return true;
  // The kernel refuses short addresses itself; what it would refuse, a
  // deny-by-default policy refuses first. Any other family (AF_UNSPEC:
  // udp_sendmsg sends to the IPv4 address that follows) is refused too.
  const std::optional<IpDestination> ip = IpOf(address, length);
  return ip && DestinationAllowed(policy, ip->family, ip->bytes, ip->port);
}

namespace {

// `host` as an entry writes it ("PyPI.org.") names `name` ("pypi.org"); a
// wildcard ("*.example.com") every name below its domain
// ("api.example.com", "a.b.example.com"), not the domain itself.
bool HostNames(std::string_view host, std::string_view name) {
  if (host.ends_with('.')) host.remove_suffix(1);
  if (host.starts_with("*.")) {
    host.remove_prefix(1);  // ".example.com": a label, then the domain
    if (name.size() <= host.size()) return false;
    name.remove_prefix(name.size() - host.size());
  }
  return host.size() == name.size() &&
         std::equal(host.begin(), host.end(), name.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

}  // namespace

bool NameAllowed(const Policy& policy, std::string_view name) {
  return std::any_of(policy.egress.begin(), policy.egress.end(),
                     [&](const EgressRule& rule) { return HostNames(rule.host, name); });
}

bool NameAndPortAllowed(const Policy& policy, std::string_view name, std::uint16_t port) {
  return std::any_of(policy.egress.begin(), policy.egress.end(), [&](const EgressRule& rule) {
    return HostNames(rule.host, name) && PortsHold(rule, port);
  });
}

std::string_view EgressName(const Policy& policy, const sockaddr* address, socklen_t length) {
  const std::optional<IpDestination> ip = IpOf(address, length);
  if (!ip || !policy.egress_default_deny) return {};
  for (const EgressRule& rule : policy.egress) {
    if (!rule.host.empty() && RuleAllows(rule, ip->family, ip->bytes, ip->port, false)) {
      return rule.host;
    }
  }
  return {};
}

bool ExecAllowed(const Policy& policy, std::string_view resolved_path) {
  if (policy.exec_allow.empty()) return true;
  for (const std::string& pattern : policy.exec_allow) {
    if (GlobMatches(pattern, resolved_path)) return true;
  }
  return false;
}

bool BindAllowed(const Policy& policy, const sockaddr* address, socklen_t length) {
  if (!policy.egress_default_deny) return true;
  if (address == nullptr || length < static_cast<socklen_t>(sizeof(sa_family_t))) return false;
  sa_family_t family = 0;
  std::memcpy(&family, address, sizeof family);
  // Port 0 asks the kernel for an ephemeral port, as every connect does
  // implicitly: the address decides, not the entry's port list.
  if (family == AF_INET) {
    if (length < static_cast<socklen_t>(sizeof(sockaddr_in))) return false;
    sockaddr_in in{};
    std::memcpy(&in, address, sizeof in);
    std::uint8_t bytes[4];
    std::memcpy(bytes, &in.sin_addr, sizeof bytes);
    const std::uint16_t port = ntohs(in.sin_port);
    return AddressAllowed(policy, AF_INET, bytes, port, port == 0);
  }
  if (family == AF_INET6) {
    constexpr auto kMinLength = static_cast<socklen_t>(offsetof(sockaddr_in6, sin6_scope_id));
    if (length < kMinLength) return false;
    sockaddr_in6 in6{};
    std::memcpy(&in6, address, kMinLength);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&in6.sin6_addr);
    const std::uint16_t port = ntohs(in6.sin6_port);
    // ::ffff:a.b.c.d binds the IPv4 address a.b.c.d.
    if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {
      return AddressAllowed(policy, AF_INET, bytes + 12, port, port == 0);
    }
    if (!AddressAllowed(policy, AF_INET6, bytes, port, port == 0)) return false;
    // :: on a dual-stack socket takes IPv4 too, and whether the socket is
    // one (IPV6_V6ONLY) can change until the bind: both wildcards it is.
    if (IN6_IS_ADDR_UNSPECIFIED(&in6.sin6_addr)) {
      const std::uint8_t any4[4] = {};
      return AddressAllowed(policy, AF_INET, any4, port, port == 0);
    }
    return true;
  }
  return false;
}

}  // namespace vigil::config
