#include "sentry/handlers/destination.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/strings.h"
#include "base/syscalls.h"
#include "config/policy/cidr.h"
#include "sentry/core/acting_as.h"

namespace vigil::sentry {
namespace {

bool IsLoopback(const Destination& destination) {
  if (destination.family() == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&destination.address);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (destination.family() == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&destination.address);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    // ::ffff:127.x.y.z reaches IPv4 loopback.
    return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

// SIN6_LEN_RFC2133: a sockaddr_in6 without sin6_scope_id, the shortest the
// kernel takes.
constexpr std::size_t kShortestIpv6Address = 24;

// Too short for its family: the kernel's inet and inet6 refuse it with
// EINVAL before anything else, and so does the sentry.
bool ShortIp(const Destination& destination) {
  return destination.length <
         (destination.family() == AF_INET ? sizeof(sockaddr_in) : kShortestIpv6Address);
}

// An AF_UNSPEC address read as the IPv4 one that follows its family, as
// udp_sendmsg and inet_bind read it; nullopt when too short for one.
std::optional<Destination> AsIpv4(const Destination& destination) {
  if (destination.length < sizeof(sockaddr_in)) return std::nullopt;
  Destination as_ipv4;
  std::memcpy(&as_ipv4.address, &destination.address, destination.length);
  as_ipv4.address.ss_family = AF_INET;
  as_ipv4.length = destination.length;
  return as_ipv4;
}

// An IP destination's address and port, an IPv4-mapped IPv6 address as
// the IPv4 one a dual-stack socket reaches; nullopt for one too short.
struct IpAddress {
  int family = 0;
  const std::uint8_t* bytes = nullptr;  // into the destination
  std::uint16_t port = 0;
};
std::optional<IpAddress> IpOf(const Destination& destination) {
  if (ShortIp(destination)) return std::nullopt;
  if (destination.family() == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&destination.address);
    return IpAddress{.family = AF_INET,
                     .bytes = reinterpret_cast<const std::uint8_t*>(&in->sin_addr),
                     .port = ntohs(in->sin_port)};
  }
  if (destination.family() == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&destination.address);
    IpAddress ip{.family = AF_INET6,
                 .bytes = reinterpret_cast<const std::uint8_t*>(&in6->sin6_addr),
                 .port = ntohs(in6->sin6_port)};
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
      ip.family = AF_INET;
      ip.bytes += 12;
    }
    return ip;
  }
  return std::nullopt;
}

constexpr std::uint16_t kDnsPort = 53;

// Where a resolver answers the sandbox's names, its DNS goes there alone:
// port 53 of every other address is out of the workload's reach, whatever
// the allow-list says (a query sent past the resolver would carry any name
// out), and the resolver's upstreams are reached only as the allow-list
// allows, never as the container's own loopback (a Docker network's
// embedded DNS answers on 127.0.0.11 at ports other than 53 too).
enum class ResolverReach { kResolver, kOtherDns, kUpstream, kOther };
ResolverReach ReachOfResolver(const NameService& names, const IpAddress& ip) {
  const bool resolver = config::CidrContains(names.address, ip.family, ip.bytes);
  if (resolver && ip.port == kDnsPort) return ResolverReach::kResolver;
  if (ip.port == kDnsPort) return ResolverReach::kOtherDns;
  for (const config::Cidr& upstream : names.upstreams) {
    if (config::CidrContains(upstream, ip.family, ip.bytes)) return ResolverReach::kUpstream;
  }
  return ResolverReach::kOther;
}

int IpEgressVerdict(const Sandbox& sandbox, const Destination& destination) {
  const std::optional<IpAddress> ip = IpOf(destination);
  if (!ip) return EINVAL;
  const ResolverReach reach =
      sandbox.names ? ReachOfResolver(*sandbox.names, *ip) : ResolverReach::kOther;
  if (reach == ResolverReach::kResolver) return 0;
  if (reach == ResolverReach::kOtherDns) return ENETUNREACH;
  if (sandbox.own_network && IsLoopback(destination) && reach != ResolverReach::kUpstream) {
    return 0;
  }
  if (config::EgressAllowed(*sandbox.policy, destination.get(), destination.length)) return 0;
  return LearnedName(sandbox, destination) ? 0 : ENETUNREACH;
}

// An abstract unix address (a name, not a path) in the host's network
// namespace under a policy that restricts egress: abstract names belong to
// the network namespace, so there they are the host's services' (a
// containerd shim's, a D-Bus bus's), which the allow-list has no way to
// name; refused, as loopback is unless allowed.
bool HostAbstractUnix(const Sandbox& sandbox, const Destination& destination) {
  const auto* un = reinterpret_cast<const sockaddr_un*>(&destination.address);
  return !sandbox.own_network && sandbox.policy->egress_default_deny &&
         destination.family() == AF_UNIX &&
         destination.length > offsetof(sockaddr_un, sun_path) + 1 && un->sun_path[0] == '\0';
}

int UnixVerdict(const Sandbox& sandbox, const Destination& destination) {
  return sandbox.policy->unix_sockets && !HostAbstractUnix(sandbox, destination) ? 0 : EACCES;
}

// With a network namespace of its own, every local address is the
// container's: where it can be reached is decided by whoever set up its
// network (a published port), and what it sends still meets the egress
// rules. Only in a namespace shared with the host are the host's addresses
// the allow-list's to give.
int IpBindVerdict(const Sandbox& sandbox, const Destination& destination) {
  const std::optional<IpAddress> ip = IpOf(destination);
  if (!ip) return EINVAL;
  // The resolver's port is its own: a server of the workload's there could
  // answer the resolver's upstream queries in their place.
  if (sandbox.names && ip->port == kDnsPort) return EACCES;
  if (sandbox.own_network) return 0;
  return config::BindAllowed(*sandbox.policy, destination.get(), destination.length) ? 0 : EACCES;
}

}  // namespace

std::optional<std::string> LearnedName(const Sandbox& sandbox, const Destination& destination) {
  if (!sandbox.names || sandbox.names->learned == nullptr) return std::nullopt;
  const std::optional<IpAddress> ip = IpOf(destination);
  if (!ip) return std::nullopt;
  for (std::string& name :
       sandbox.names->learned->NamesOf(ip->family, ip->bytes, names::LearnedNames::Clock::now())) {
    if (config::NameAndPortAllowed(*sandbox.policy, name, ip->port)) return std::move(name);
  }
  return std::nullopt;
}

std::string UnixPath(const Destination& destination) {
  const auto* un = reinterpret_cast<const sockaddr_un*>(&destination.address);
  const std::size_t offset = offsetof(sockaddr_un, sun_path);
  if (destination.family() != AF_UNIX || destination.length <= offset || un->sun_path[0] == '\0') {
    return "";
  }
  const std::size_t max = std::min<std::size_t>(destination.length - offset, sizeof un->sun_path);
  return std::string(un->sun_path, strnlen(un->sun_path, max));
}

Result<Destination> CopyDestination(TraceeMemory& tracee, std::uint64_t pointer,
                                    std::uint64_t length) {
  Destination destination;
  if (length > sizeof destination.address || length < sizeof(sa_family_t)) {
    return FailErrno(EINVAL, "address length");
  }
  destination.length = static_cast<socklen_t>(length);
  RETURN_IF_ERROR(tracee.Read(
      pointer, std::as_writable_bytes(
                   std::span(reinterpret_cast<char*>(&destination.address), destination.length))));
  return destination;
}

std::string DescribeDestination(const Destination& destination) {
  char text[INET6_ADDRSTRLEN] = {};
  switch (destination.family()) {
    case AF_INET: {
      const auto* in = reinterpret_cast<const sockaddr_in*>(&destination.address);
      ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
      return StrCat(text, ":", ntohs(in->sin_port));
    }
    case AF_INET6: {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&destination.address);
      ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
      return StrCat("[", text, "]:", ntohs(in6->sin6_port));
    }
    case AF_UNIX: {
      std::string path = UnixPath(destination);
      if (!path.empty()) return StrCat("unix:", path);
      const auto* un = reinterpret_cast<const sockaddr_un*>(&destination.address);
      const std::size_t offset = offsetof(sockaddr_un, sun_path);
      if (destination.length <= offset + 1) return "unix:(unnamed)";
      return StrCat("unix:@", std::string(un->sun_path + 1, destination.length - offset - 1));
    }
    default:
      return StrCat("family ", destination.family());
  }
}

int EgressVerdict(const Sandbox& sandbox, const Destination& destination, Egress use) {
  switch (destination.family()) {
    case AF_INET:
    case AF_INET6:
      return IpEgressVerdict(sandbox, destination);
    case AF_UNIX:
      return UnixVerdict(sandbox, destination);
    case AF_UNSPEC: {
      // connect: dissolves a datagram socket's association. A send: an IPv4
      // UDP socket sends to the address that follows the family (and
      // refuses a shorter one), so that address is judged.
      if (use == Egress::kConnect) return 0;
      std::optional<Destination> as_ipv4 = AsIpv4(destination);
      return as_ipv4 ? IpEgressVerdict(sandbox, *as_ipv4) : 0;
    }
    default:
      // Sockets of other families are only NETLINK_ROUTE (the filter
      // refuses the rest at socket()), which talks to the kernel.
      return 0;
  }
}

int BindVerdict(const Sandbox& sandbox, const Destination& destination) {
  switch (destination.family()) {
    case AF_INET:
    case AF_INET6:
      return IpBindVerdict(sandbox, destination);
    case AF_UNSPEC: {
      // inet_bind takes AF_UNSPEC with INADDR_ANY as AF_INET (and refuses
      // any other address): judged as the IPv4 address that follows. A
      // shorter one every family refuses with EINVAL.
      std::optional<Destination> as_ipv4 = AsIpv4(destination);
      return as_ipv4 ? IpBindVerdict(sandbox, *as_ipv4) : 0;
    }
    case AF_UNIX:
      return UnixVerdict(sandbox, destination);
    default:
      // Only NETLINK_ROUTE sockets are of another family (the filter
      // refuses the rest at socket()), and a netlink bind names the
      // socket's own port id and the multicast groups it listens to.
      return 0;
  }
}

Result<void> AnchorUnixPath(Tracee& tracee, Destination& destination, bool in_user_namespace) {
  if (destination.family() != AF_UNIX) return {};
  std::string path = UnixPath(destination);
  if (path.empty()) return {};
  // A relative path resolves from the working directory, which then acts as
  // the root: ".." cannot climb above it (stricter than the kernel, never
  // looser).
  ASSIGN_OR_RETURN(SharedFd base,
                   path[0] == '/' ? tracee.Root() : tracee.WorkingDirectory().map([](UniqueFd cwd) {
                     return SharedFd(std::move(cwd));
                   }));
  // Walked as the workload: the connect through /proc/self/fd/N checks
  // only the socket file, not the directories on the way to it.
  ASSIGN_OR_RETURN(ThreadStatus thread, tracee.Status());
  Result<UniqueFd> socket_file = [&]() -> Result<UniqueFd> {
    ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(thread, in_user_namespace));
    return Openat2(base.Get(), path.c_str(), O_PATH, 0, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
  }();
  if (!socket_file) return tl::unexpected(socket_file.error());
  auto* un = reinterpret_cast<sockaddr_un*>(&destination.address);
  std::string reach = StrCat("/proc/self/fd/", socket_file->Get());
  std::memset(un->sun_path, 0, sizeof un->sun_path);
  std::memcpy(un->sun_path, reach.c_str(), reach.size());
  destination.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + reach.size() + 1);
  destination.anchor = std::move(*socket_file);
  return {};
}

}  // namespace vigil::sentry
