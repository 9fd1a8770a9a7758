// The sandbox's own resolver (sentry/names/resolver.h), where the compiled
// policy has one: UDP and TCP sockets on port 53 of the resolver's address
// in the container's network namespace, which the workload's /etc/resolv.conf
// names (lifecycle/sandbox_names.h); upstream, the nameservers of the
// container's own resolv.conf, asked from that namespace as the container
// would have asked them. What it answers, connects follow
// (Sandbox::names); each query is an audit record.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "base/file.h"
#include "base/strings.h"
#include "config/policy/cidr.h"
#include "runtime/policy/resolv_conf.h"
#include "supervisor/supervisor_process.h"

namespace vigil::supervisor {
namespace {

constexpr std::uint16_t kDnsPort = 53;

// A socket of `type` bound to port 53 of `address` (a TCP one listening);
// EADDRINUSE as an error code of its own, for the caller to try another.
Result<UniqueFd> BindDnsSocket(int type, const std::string& address) {
  UniqueFd socket(::socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!socket) return FailErrno("socket for the sandbox's resolver");
  sockaddr_in in{.sin_family = AF_INET, .sin_port = htons(kDnsPort)};
  if (::inet_pton(AF_INET, address.c_str(), &in.sin_addr) != 1) {
    return Fail(StrCat("the sandbox's resolver: bad address ", Quote(address)));
  }
  if (::bind(socket.Get(), reinterpret_cast<const sockaddr*>(&in), sizeof in) != 0 ||
      (type == SOCK_STREAM && ::listen(socket.Get(), 16) != 0)) {
    return FailErrno(StrCat("bind the sandbox's resolver to ", address, ":", kDnsPort));
  }
  return socket;
}

// UDP and TCP sockets on port 53 of `preferred`, or where a pod's other
// container holds that already, of the first free one of 127.53.0.1 and
// on; returns them and the address they took.
Result<std::pair<sentry::names::ResolverSockets, std::string>> BindResolverSockets(
    std::string_view preferred) {
  constexpr int kOthers = 64;
  for (int i = 0; i <= kOthers; ++i) {
    const std::string address =
        i == 0 ? std::string(preferred) : StrCat("127.53.", i / 256, ".", i % 256);
    Result<UniqueFd> udp = BindDnsSocket(SOCK_DGRAM, address);
    Result<UniqueFd> tcp = udp ? BindDnsSocket(SOCK_STREAM, address) : std::move(udp);
    if (tcp) {
      return std::pair{
          sentry::names::ResolverSockets{.udp = std::move(*udp), .tcp = std::move(*tcp)}, address};
    }
    if (tcp.error().code != EADDRINUSE) return tl::unexpected(tcp.error());
  }
  return Fail("the sandbox's resolver: every address tried is in use");
}

// Rewrites the workload's resolv.conf in place (the container's mount
// holds this file, not its name) for a resolver at another address.
Result<void> RewriteInPlace(const std::string& path, std::string_view contents) {
  UniqueFd file(::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC));
  if (!file) return FailErrno(StrCat("open ", path));
  if (::write(file.Get(), contents.data(), contents.size()) !=
      static_cast<ssize_t>(contents.size())) {
    return FailErrno(StrCat("write ", path));
  }
  return {};
}

}  // namespace

Result<void> Supervisor::StartNameService() {
  const std::string& preferred = args_.record.compiled->name_resolver;
  if (preferred.empty()) return {};
  ASSIGN_OR_RETURN(auto bound, BindResolverSockets(preferred));
  auto& [sockets, address] = bound;
  if (address != preferred) {
    // The file create wrote, its search list and options kept.
    ASSIGN_OR_RETURN(const std::string written, ReadFile(args_.dir.ResolvConfPath(), 64 * 1024));
    RETURN_IF_ERROR(RewriteInPlace(args_.dir.ResolvConfPath(),
                                   runtime::MakeSandboxResolvConf(written, address).workload));
  }
  const config::Policy& policy = args_.record.compiled->rules;
  ASSIGN_OR_RETURN(
      resolver_,
      sentry::names::Resolver::Start(
          *loop_, std::move(sockets), learned_names_,
          {.allowed =
               [&policy](std::string_view name) { return config::NameAllowed(policy, name); },
           .record =
               [this](const sentry::names::Resolution& resolution) {
                 audit_->RecordQuery(resolution, init_pid_);
               },
           .resolv_conf = args_.dir.UpstreamResolvConfPath()}));
  ASSIGN_OR_RETURN(config::Cidr listening, config::ParseCidr(address));
  sandbox_.names = sentry::NameService{
      .address = listening, .upstreams = resolver_->Upstreams(), .learned = &learned_names_};
  return {};
}

}  // namespace vigil::supervisor
