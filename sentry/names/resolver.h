// The sandbox's resolver (docs/policy.md, "Egress by name"): the one
// nameserver a sandbox under an allow-list by name has. It answers the
// names the policy allows from the host's resolver (c-ares forwards the
// workload's own query, so the answer is the one the host would give, its
// CNAME chain and TTLs included) and learns the addresses they answer
// with; every other name is answered as one that does not exist (NXDOMAIN:
// glibc gives up a search list at REFUSED, so a name tried with the
// search domains of a Kubernetes pod's resolv.conf first would never reach
// the allowed one), and no query of the workload's leaves the sandbox. Each
// decision is reported to `record` for the audit.
//
// It serves UDP, and TCP (dns_tcp.h), on sockets it is given (bound where
// the sandbox's resolv.conf points), on the supervisor's event loop,
// forwarding with c-ares, whose sockets and timers the loop watches too.
#pragma once

#include <sys/socket.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/policy/policy.h"
#include "sentry/loop/event_loop.h"
#include "sentry/names/dns_message.h"
#include "sentry/names/dns_tcp.h"
#include "sentry/names/learned_names.h"

namespace vigil::sentry::names {

// One query's outcome, for the audit: the name asked, its type, whether it
// was allowed, and the addresses the answer gave (none for a refusal or a
// failure upstream).
struct Resolution {
  std::string name;
  std::uint16_t type = 0;
  bool allowed = false;
  Rcode rcode = Rcode::kNoError;
  std::vector<LearnedAddress> addresses;
};

struct ResolverOptions {
  // Whether the policy allows `name` (lower case, no trailing dot).
  std::function<bool(std::string_view name)> allowed;
  std::function<void(const Resolution&)> record;
  // Upstream nameservers as c-ares's CSV ("10.0.0.2:53,[::1]:53"); empty:
  // those of the resolv.conf at `resolv_conf` (empty: /etc/resolv.conf),
  // read when the resolver starts.
  std::string upstream;
  std::string resolv_conf;
};

// Where the resolver listens: a bound UDP socket, and a listening TCP one
// on the same address (none: UDP only); both non-blocking.
struct ResolverSockets {
  UniqueFd udp;
  UniqueFd tcp;
};

class Resolver {
 public:
  // Serves queries arriving on `sockets` on `loop`, learning answers into
  // `learned`; both outlive it.
  static Result<std::unique_ptr<Resolver>> Start(EventLoop& loop, ResolverSockets sockets,
                                                 LearnedNames& learned, ResolverOptions options);
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;
  ~Resolver();

  // The upstream nameservers' addresses, each a block of one address:
  // only the resolver may reach them, never the workload itself.
  std::vector<config::Cidr> Upstreams() const;

 private:
  struct Pending;
  Resolver(EventLoop& loop, UniqueFd socket, LearnedNames& learned, ResolverOptions options);
  void OnDatagrams();
  // Answers `pending`'s query, or forwards it upstream.
  void Decide(std::unique_ptr<Pending> pending);
  void Answer(const Pending& pending, const std::vector<std::uint8_t>& reply);
  void OnUpstreamSocket(int fd, bool readable, bool writable);
  void FlushWrites();
  void ArmTimer();
  static void Answered(void* arg, int status, int timeouts, unsigned char* answer, int length);

  EventLoop& loop_;
  UniqueFd socket_;
  std::unique_ptr<DnsTcpServer> tcp_;
  UniqueFd timer_;
  LearnedNames& learned_;
  ResolverOptions options_;
  struct Channel;
  std::unique_ptr<Channel> channel_;
};

}  // namespace vigil::sentry::names
