// socket(AF_NETLINK, *, NETLINK_ROUTE): opened by the sentry in the
// container's network namespace, as an opener without CAP_NET_ADMIN
// (netlink.h), and installed in the workload with ADDFD.
#include "sentry/handlers/netlink.h"

#include <linux/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "sentry/core/acting_as.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {
namespace {

bool IsKernel(const sockaddr_nl& address) { return address.nl_pid == 0 && address.nl_groups == 0; }

Result<UniqueFd> OpenRouteSocket(int type, bool over_user_namespace) {
  ASSIGN_OR_RETURN(ActingAs opener, ActingAs::WithoutNetworkAdmin(over_user_namespace));
  // SOCK_CLOEXEC for the sentry's own descriptor; the workload's is
  // installed with its own flag. SOCK_NONBLOCK is the open file's, shared.
  UniqueFd socket(::socket(AF_NETLINK, type | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (!socket) return FailErrno("socket(AF_NETLINK, NETLINK_ROUTE)");
  return socket;
}

}  // namespace

bool IsNetlinkSocket(int socket) {
  int domain = 0;
  socklen_t size = sizeof domain;
  return ::getsockopt(socket, SOL_SOCKET, SO_DOMAIN, &domain, &size) == 0 && domain == AF_NETLINK;
}

int NetlinkDestinationVerdict(int socket, const Destination& destination) {
  if (destination.family() != AF_NETLINK || !IsNetlinkSocket(socket)) return 0;
  if (destination.length < sizeof(sockaddr_nl)) return EINVAL;
  sockaddr_nl address{};
  std::memcpy(&address, &destination.address, sizeof address);
  if (!IsKernel(address)) return EPERM;
  sockaddr_nl peer{};
  socklen_t size = sizeof peer;
  if (::getpeername(socket, reinterpret_cast<sockaddr*>(&peer), &size) != 0) return errno;
  return IsKernel(peer) ? 0 : EPERM;
}

Result<Verdict> HandleSocket(HandlerContext& context) {
  const auto& args = context.event.args;
  const auto domain = static_cast<int>(args[0]);
  const auto type = static_cast<int>(args[1]);
  const auto protocol = static_cast<int>(args[2]);
  context.AuditArg("family", domain == AF_NETLINK ? "AF_NETLINK" : std::to_string(domain));
  context.AuditNumber("protocol", protocol);
  // The filter sends nothing else here; should it, nothing is opened.
  if (domain != AF_NETLINK || protocol != NETLINK_ROUTE) {
    return Verdict::Fail(EAFNOSUPPORT, Decision::kDeny);
  }
  // Registers only: nothing read from the workload, nothing to go stale
  // before the socket exists; ADDFD checks the notification once more. The
  // serving thread lives in the container's network namespace
  // (docs/security.md, "The deputy rule"), so the socket belongs to it.
  Result<UniqueFd> socket = OpenRouteSocket(type, context.sandbox.user_namespace);
  if (!socket) {
    return Verdict::Fail(socket.error().code != 0 ? socket.error().code : EIO, Decision::kAllow);
  }
  if (!context.tracee.Valid()) return Verdict::Stale();
  return Verdict::InstallFd(std::move(*socket), (type & SOCK_CLOEXEC) != 0, Decision::kAllow);
}

}  // namespace vigil::sentry
