// bind(2) under a network policy. The address is copied once and decided
// on (BindVerdict); the sentry then binds the workload's own socket
// (pidfd_getfd) to that copy, never letting the kernel read the address
// again (docs/design.md, rule 1), and returns the kernel's answer.
//
// A unix socket path creates a file. Its directory is resolved in the
// container as the workload, the policy decides on directory + name as it
// does for mknod of a socket, and the sentry binds to
// /proc/self/fd/<directory>/<name> with the workload's credentials, so the
// kernel creates exactly that name in exactly that directory, owned as the
// workload's would be. The kernel keeps the address it was given: the
// socket's name (getsockname, a peer's recvfrom) is that rewritten path
// (docs/policy.md).
//
// Under a policy that refuses no address and no file, a decided and
// audited bind is the kernel's to make (KernelMayBind), which binds to the
// name as the workload wrote it.
#include <fcntl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "base/strings.h"
#include "config/policy/policy.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/caller.h"
#include "sentry/handlers/destination.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/netlink.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

int SocketDomain(int socket) {
  int domain = -1;
  socklen_t size = sizeof domain;
  if (::getsockopt(socket, SOL_SOCKET, SO_DOMAIN, &domain, &size) != 0) return -1;
  return domain;
}

Verdict Bound(int rc, int error) {
  return rc == 0 ? Verdict::Return(0, Decision::kAllow) : Verdict::Fail(error, Decision::kAllow);
}

// The name a path's bind creates, in the directory it is resolved in.
struct SocketName {
  std::string parent;     // in the container, as written
  std::string name;       // one component
  std::string call_name;  // with the trailing slash written, which the kernel judges
  bool dot = false;       // "." or "..": the kernel refuses (EADDRINUSE), the policy has no say
};

SocketName Split(std::string path) {
  const bool trailing_slash = path.size() > 1 && path.ends_with('/');
  while (path.size() > 1 && path.ends_with('/')) path.pop_back();
  SocketName socket_name;
  if (path == "/") {
    socket_name.parent = "/";
    socket_name.name = ".";
  } else {
    const std::size_t slash = path.rfind('/');
    socket_name.parent = slash == 0 ? "/" : path.substr(0, slash);
    socket_name.name = path.substr(slash + 1);
  }
  socket_name.dot = socket_name.name == "." || socket_name.name == "..";
  socket_name.call_name =
      trailing_slash && !socket_name.dot ? socket_name.name + "/" : socket_name.name;
  return socket_name;
}

Result<Verdict> BindUnixPath(HandlerContext& context, int socket, Destination& address,
                             const std::string& path) {
  // unix_validate_addr's bound: the rewritten address would be shorter.
  if (address.length > sizeof(sockaddr_un)) return Verdict::Fail(EINVAL, Decision::kAllow);
  ASSIGN_OR_RETURN(const Caller caller, CallerOf(context));
  // Made absolute before acting as the workload: /proc/TID/cwd is the
  // sentry's to read, not the workload's.
  ASSIGN_OR_RETURN(std::string absolute,
                   ContainerPath(context.tracee, caller.thread, AT_FDCWD, path));
  // The directory's search and write permission, the file's owner and its
  // mode (the umask) are the workload's. Nothing here waits.
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(caller.thread, context.sandbox.user_namespace));
  const SocketName socket_name = Split(absolute);
  ASSIGN_OR_RETURN(UniqueFd directory,
                   ResolveInRoot(caller.root.Get(), socket_name.parent, O_PATH | O_DIRECTORY));
  Result<std::string> where = PathInRoot(directory.Get(), caller.root_path);
  if (!where) return Failed(where.error(), Decision::kDeny);
  const std::string resolved =
      *where == "/" ? "/" + socket_name.name : *where + "/" + socket_name.name;
  context.AuditArg("resolved", resolved);
  if (!socket_name.dot) {
    if (int refused = Refusal(AccessFor(context, resolved), /*write=*/true); refused != 0) {
      return Verdict::Fail(refused, Decision::kDeny);
    }
  }
  // sun_path holds 108 bytes; the rewritten path keeps its NUL in them.
  const std::string reach = StrCat("/proc/self/fd/", directory.Get(), "/", socket_name.call_name);
  auto* un = reinterpret_cast<sockaddr_un*>(&address.address);
  if (reach.size() >= sizeof un->sun_path) return Verdict::Fail(ENAMETOOLONG, Decision::kAllow);
  std::memset(un->sun_path, 0, sizeof un->sun_path);
  std::memcpy(un->sun_path, reach.c_str(), reach.size());
  address.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + reach.size() + 1);
  if (!context.tracee.Valid()) return Verdict::Stale();
  const int rc = ::bind(socket, address.get(), address.length);
  return Bound(rc, errno);
}

// netlink_autobind names an unbound socket after the caller's tgid, which
// would be the sentry's: the workload's is asked for first, and the
// kernel's own choice taken when it is in use (as the kernel falls back).
std::optional<Destination> AsTheWorkloadsPortId(int socket, const Destination& address,
                                                const ThreadStatus& thread) {
  if (address.family() != AF_NETLINK || address.length < sizeof(sockaddr_nl)) return std::nullopt;
  sockaddr_nl nl{};
  std::memcpy(&nl, &address.address, sizeof nl);
  sockaddr_nl bound{};
  socklen_t size = sizeof bound;
  if (nl.nl_pid != 0 || ::getsockname(socket, reinterpret_cast<sockaddr*>(&bound), &size) != 0 ||
      bound.nl_pid != 0 || thread.ns_tgid <= 0) {
    return std::nullopt;
  }
  Destination named;
  nl.nl_pid = static_cast<__u32>(thread.ns_tgid);
  std::memcpy(&named.address, &address.address, address.length);
  std::memcpy(&named.address, &nl, sizeof nl);
  named.length = address.length;
  return named;
}

// An IP, netlink or abstract/unnamed unix address: nothing to resolve.
Result<Verdict> BindAddress(HandlerContext& context, int socket, const Destination& address) {
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  const std::optional<Destination> named =
      IsNetlinkSocket(socket) ? AsTheWorkloadsPortId(socket, address, thread) : std::nullopt;
  const bool capabilities_count = !context.sandbox.user_namespace || context.sandbox.own_network;
  ASSIGN_OR_RETURN(ActingAs acting,
                   ActingAs::ForBind(thread, context.sandbox.user_namespace, capabilities_count));
  if (!context.tracee.Valid()) return Verdict::Stale();
  if (named && ::bind(socket, named->get(), named->length) == 0) return Bound(0, 0);
  if (named && errno != EADDRINUSE) return Bound(-1, errno);
  const int rc = ::bind(socket, address.get(), address.length);
  return Bound(rc, errno);
}

// Whether the kernel may make this bind itself, once decided and audited:
// under a policy that refuses no address (RefusesNoAddress) and lets every
// file be written, whatever address or socket a racing thread puts in
// place is one the policy allows, a socket file included, and the kernel
// checks the workload's own capabilities and permissions (docs/security.md,
// "Where the sentry lets the kernel act"). The socket keeps the name the
// workload gave, where the sentry's bind names /proc/self/fd/N/NAME.
bool KernelMayBind(const HandlerContext& context) {
  return config::RefusesNoAddress(*context.sandbox.policy) &&
         !config::RestrictsFiles(*context.sandbox.policy);
}

}  // namespace

Result<Verdict> HandleBind(HandlerContext& context) {
  const auto& args = context.event.args;
  // The kernel looks the descriptor up before it copies the address.
  ASSIGN_OR_RETURN(UniqueFd socket, context.tracee.Descriptor(static_cast<int>(args[0])));
  struct stat st {};
  if (::fstat(socket.Get(), &st) != 0) return Verdict::Fail(errno, Decision::kAllow);
  if (!S_ISSOCK(st.st_mode)) return Verdict::Fail(ENOTSOCK, Decision::kAllow);
  ASSIGN_OR_RETURN(Destination address, CopyDestination(context.tracee, args[1], args[2]));
  context.AuditArg("address", DescribeDestination(address));
  if (int refused = BindVerdict(context.sandbox, address); refused != 0) {
    return Verdict::Fail(refused, refused == EINVAL ? Decision::kAllow : Decision::kDeny);
  }
  if (KernelMayBind(context)) return Verdict::Continue();
  if (!context.tracee.Valid()) return Verdict::Stale();
  // A unix path on a unix socket creates a file; on any other socket the
  // family is refused (EAFNOSUPPORT, EINVAL) and nothing is looked up.
  const std::string path = UnixPath(address);
  if (!path.empty() && SocketDomain(socket.Get()) == AF_UNIX) {
    return BindUnixPath(context, socket.Get(), address, path);
  }
  return BindAddress(context, socket.Get(), address);
}

}  // namespace vigil::sentry
