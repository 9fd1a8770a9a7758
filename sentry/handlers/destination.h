// A socket address named by connect, sendto, sendmsg or bind: copied once
// from the workload (docs/design.md, rule 2), decided against the network
// policy, and made safe for the sentry to use on the workload's behalf.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {

struct Destination {
  sockaddr_storage address{};
  socklen_t length = 0;
  // For a unix socket path: the socket file opened (O_PATH) inside the
  // container, which `address` then names as /proc/self/fd/N so that the
  // kernel cannot resolve the path anywhere else.
  UniqueFd anchor;

  int family() const { return address.ss_family; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&address); }
};

// Copies `length` bytes of sockaddr from `pointer` (EINVAL beyond
// sockaddr_storage, EFAULT for a bad pointer, as the kernel answers).
Result<Destination> CopyDestination(TraceeMemory& tracee, std::uint64_t pointer,
                                    std::uint64_t length);

// "10.0.0.1:80", "[::1]:53", "unix:/run/x.sock", "unix:@abstract", "family 16".
std::string DescribeDestination(const Destination& destination);

// The errno that refuses `destination` under the sandbox's policy, or 0:
// ENETUNREACH for an IP destination outside the egress allow-list (as if no
// route led there), EACCES for a unix socket when they are not allowed,
// EINVAL for an IP address too short for its family (as the kernel would
// answer). Loopback is the container's own when its network namespace is
// not the host's; in the host's, loopback is judged as any address, and an
// abstract unix name is refused (EACCES) under "egress": "deny". Where a
// resolver answers the sandbox's names (Sandbox::names), port 53 of its
// address is reachable, port 53 of every other is not, and its upstreams
// only as the allow-list allows (not as the container's own loopback).
// `use`: an AF_UNSPEC address dissolves a connect's association, but a UDP
// send goes to the IPv4 address that follows it, which is judged.
enum class Egress { kConnect, kSend };
int EgressVerdict(const Sandbox& sandbox, const Destination& destination,
                  Egress use = Egress::kSend);

// The allowed name the sandbox learned `destination`'s address from (its
// resolver's answer, still held) whose entry holds the port; nullopt for
// none, or where no resolver serves the sandbox.
std::optional<std::string> LearnedName(const Sandbox& sandbox, const Destination& destination);

// The local address `destination` would bind, under the sandbox's policy:
// 0 if allowed, EACCES for an IP address the policy does not allow
// (config::BindAllowed, in a network namespace shared with the host; in
// one of the container's own, every IP address is its own) or a unix
// socket when they are not allowed (or an abstract one in the host's
// namespace, as for EgressVerdict), EINVAL for an IP address too short for
// its family (as the kernel answers); port 53 is refused (EACCES) where a
// resolver answers the sandbox's names. AF_UNSPEC is judged as the IPv4
// address it binds on an AF_INET socket; other families (netlink) bind
// nothing the policy governs.
int BindVerdict(const Sandbox& sandbox, const Destination& destination);

// The path of a unix address, up to its first NUL within the length (""
// for unnamed and abstract ones).
std::string UnixPath(const Destination& destination);

// For a unix socket path, opens the socket file in the workload's root (or
// working directory, for a relative path), as the workload, and rewrites
// the address to reach exactly that file. Other addresses are left as they
// are. `in_user_namespace` as for ActingAs::Begin.
Result<void> AnchorUnixPath(Tracee& tracee, Destination& destination, bool in_user_namespace);

}  // namespace vigil::sentry
