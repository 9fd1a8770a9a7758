// The network handlers' decisions on IP destinations: connects performed
// on the workload's own socket when allowed, by block, by name or by what
// the sandbox's resolver learned; refused as unreachable otherwise.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>

#include "base/strings.h"
#include "config/policy/cidr.h"
#include "sentry/handlers/destination.h"
#include "sentry/handlers/handler.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"
#include "tests/sentry/network_fixture.h"

namespace vigil::sentry {
namespace {

TEST_F(NetworkHandlers, ConnectToAnAllowedDestinationIsPerformed) {
  UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, Loopback(listener_.port)));
  Verdict verdict =
      Call(SYS_connect, {static_cast<std::uint64_t>(socket.Get()), kAddress, sizeof(sockaddr_in)});
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  sockaddr_in peer{};
  socklen_t size = sizeof peer;
  ASSERT_EQ(::getpeername(socket.Get(), reinterpret_cast<sockaddr*>(&peer), &size), 0);
  EXPECT_EQ(ntohs(peer.sin_port), listener_.port);
  EXPECT_EQ(audit_args_.at(0).value, StrCat("127.0.0.1:", listener_.port));
  // Still blocking afterwards: the workload's socket flags are restored.
  EXPECT_EQ(::fcntl(socket.Get(), F_GETFL) & O_NONBLOCK, 0);
}

// A connect the allow-list allows by a name's entry is audited with the
// name, not only the address.
TEST_F(NetworkHandlers, AConnectAllowedByANameIsAuditedWithIt) {
  policy_.egress.front().host = "api.example.com";
  UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, Loopback(listener_.port)));
  ASSERT_EQ(
      Call(SYS_connect, {static_cast<std::uint64_t>(socket.Get()), kAddress, sizeof(sockaddr_in)})
          .error,
      0);
  ASSERT_EQ(audit_args_.size(), 2u);
  EXPECT_EQ(audit_args_[1].name, "name");
  EXPECT_EQ(audit_args_[1].value, "api.example.com");
}

// Connects follow the names: an address the sandbox's resolver learned
// from an allowed name's answer is reachable on that name's ports for as
// long as the answer holds; an address it never answered with, a name
// never allowed, another port or an expired answer are not.
TEST_F(NetworkHandlers, ConnectsFollowTheNamesTheResolverLearned) {
  Result<config::Policy> policy = config::ParsePolicy(
      StrCat(R"({"network": {"egress": "deny", "allow": [{"host": "api.example.com", "ports": [)",
             listener_.port, R"(]}]}})"));
  ASSERT_TRUE(policy) << policy.error().message;
  policy_ = *policy;
  names::LearnedNames learned(std::chrono::seconds(0));
  sandbox_.names = NameService{.learned = &learned};
  auto connect = [&](std::uint16_t port) {
    UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    EXPECT_TRUE(tracee_.WriteObject(kAddress, Loopback(port)));
    return Call(SYS_connect,
                {static_cast<std::uint64_t>(socket.Get()), kAddress, sizeof(sockaddr_in)});
  };
  EXPECT_EQ(connect(listener_.port).error, ENETUNREACH);  // learned from no answer
  names::LearnedAddress loopback{.family = AF_INET, .ttl = std::chrono::seconds(60)};
  loopback.address = {127, 0, 0, 1};
  learned.Learn("other.example.com", loopback, names::LearnedNames::Clock::now());
  EXPECT_EQ(connect(listener_.port).error, ENETUNREACH);  // a name never allowed
  learned.Learn("api.example.com", loopback, names::LearnedNames::Clock::now());
  const Verdict allowed = connect(listener_.port);
  EXPECT_EQ(allowed.error, 0);
  EXPECT_EQ(allowed.decision, Decision::kAllow);
  ASSERT_EQ(audit_args_.size(), 2u);
  EXPECT_EQ(audit_args_[1].value, "api.example.com");
  Listener other;
  EXPECT_EQ(connect(other.port).error, ENETUNREACH);  // not the entry's port
  // An answer whose time is up holds nothing.
  names::LearnedNames expired(std::chrono::seconds(0));
  loopback.ttl = std::chrono::seconds(0);
  expired.Learn("api.example.com", loopback,
                names::LearnedNames::Clock::now() - std::chrono::seconds(1));
  sandbox_.names->learned = &expired;
  EXPECT_EQ(connect(listener_.port).error, ENETUNREACH);
}

// A blocking connect leaves the socket connected as the kernel's own would:
// connecting again is EISCONN, directly or through the sentry.
TEST_F(NetworkHandlers, AConnectedSocketIsConnected) {
  UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, Loopback(listener_.port)));
  const std::array<std::uint64_t, 6> args = {static_cast<std::uint64_t>(socket.Get()), kAddress,
                                             sizeof(sockaddr_in)};
  ASSERT_EQ(Call(SYS_connect, args).error, 0);
  const sockaddr_in again = Loopback(listener_.port);
  EXPECT_EQ(::connect(socket.Get(), reinterpret_cast<const sockaddr*>(&again), sizeof again), -1);
  EXPECT_EQ(errno, EISCONN);
  EXPECT_EQ(Call(SYS_connect, args).error, EISCONN);
}

TEST_F(NetworkHandlers, ConnectOutsideTheAllowListIsUnreachableAndNotPerformed) {
  Listener other;
  UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, Loopback(other.port)));
  Verdict verdict =
      Call(SYS_connect, {static_cast<std::uint64_t>(socket.Get()), kAddress, sizeof(sockaddr_in)});
  EXPECT_EQ(verdict.error, ENETUNREACH);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
  sockaddr_in peer{};
  socklen_t size = sizeof peer;
  EXPECT_NE(::getpeername(socket.Get(), reinterpret_cast<sockaddr*>(&peer), &size), 0);
}

// With a network namespace of its own, the container's loopback is its own.
TEST_F(NetworkHandlers, OwnLoopbackIsAllowedOnlyWithAnOwnNetworkNamespace) {
  Listener other;
  Destination destination;
  sockaddr_in in = Loopback(other.port);
  std::memcpy(&destination.address, &in, sizeof in);
  destination.length = sizeof in;
  EXPECT_EQ(EgressVerdict(sandbox_, destination), ENETUNREACH);
  sandbox_.own_network = true;
  EXPECT_EQ(EgressVerdict(sandbox_, destination), 0);
  // ::ffff:127.0.0.1 is loopback too.
  sockaddr_in6 mapped{.sin6_family = AF_INET6, .sin6_port = htons(other.port)};
  ::inet_pton(AF_INET6, "::ffff:127.0.0.1", &mapped.sin6_addr);
  std::memcpy(&destination.address, &mapped, sizeof mapped);
  destination.length = sizeof mapped;
  EXPECT_EQ(EgressVerdict(sandbox_, destination), 0);
}

// With a resolver answering the sandbox's names, DNS goes to it alone:
// port 53 elsewhere is out of reach even where the allow-list holds it, a
// loopback upstream (Docker's embedded DNS) is not the container's own
// loopback, and the workload binds no port 53 of its own (a server there
// could answer the resolver's queries).
TEST_F(NetworkHandlers, WithAResolverDnsGoesToItAlone) {
  Result<config::Policy> policy = config::ParsePolicy(
      R"({"network": {"egress": "deny", "allow": [{"cidr": "0.0.0.0/0"}, {"cidr": "::/0"}]}})");
  ASSERT_TRUE(policy) << policy.error().message;
  policy_ = *policy;
  sandbox_.own_network = true;
  auto ip = [](const char* text, std::uint16_t port) {
    Destination destination;
    sockaddr_in6 in6{.sin6_family = AF_INET6, .sin6_port = htons(port)};
    sockaddr_in in{.sin_family = AF_INET, .sin_port = htons(port)};
    if (::inet_pton(AF_INET, text, &in.sin_addr) == 1) {
      std::memcpy(&destination.address, &in, sizeof in);
      destination.length = sizeof in;
    } else {
      EXPECT_EQ(::inet_pton(AF_INET6, text, &in6.sin6_addr), 1) << text;
      std::memcpy(&destination.address, &in6, sizeof in6);
      destination.length = sizeof in6;
    }
    return destination;
  };
  EXPECT_EQ(EgressVerdict(sandbox_, ip("192.0.2.53", 53)), 0);  // no resolver: the list decides
  Result<config::Cidr> resolver = config::ParseCidr("127.0.0.53");
  Result<config::Cidr> upstream = config::ParseCidr("192.0.2.53");
  Result<config::Cidr> embedded = config::ParseCidr("127.0.0.11");
  ASSERT_TRUE(resolver && upstream && embedded);
  sandbox_.names = NameService{.address = *resolver, .upstreams = {*upstream, *embedded}};
  EXPECT_EQ(EgressVerdict(sandbox_, ip("127.0.0.53", 53)), 0);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("127.0.0.1", 53)), ENETUNREACH);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("198.51.100.1", 53)), ENETUNREACH);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("2001:db8::1", 53)), ENETUNREACH);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("192.0.2.53", 53)), ENETUNREACH);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("127.0.0.11", 53)), ENETUNREACH);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("127.0.0.11", 40000)), ENETUNREACH);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("::ffff:127.0.0.11", 40000)), ENETUNREACH);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("127.0.0.1", 8000)), 0);  // the container's own
  // An upstream's other ports, as the allow-list allows (an API served
  // from the nameserver's address).
  EXPECT_EQ(EgressVerdict(sandbox_, ip("192.0.2.53", 443)), 0);
  EXPECT_EQ(EgressVerdict(sandbox_, ip("198.51.100.1", 443)), 0);
  EXPECT_EQ(BindVerdict(sandbox_, ip("0.0.0.0", 53)), EACCES);
  EXPECT_EQ(BindVerdict(sandbox_, ip("::", 53)), EACCES);
  EXPECT_EQ(BindVerdict(sandbox_, ip("0.0.0.0", 8000)), 0);
}

TEST_F(NetworkHandlers, UnixSocketsFollowThePolicy) {
  sandbox_.own_network = true;
  Destination destination;
  destination.address.ss_family = AF_UNIX;
  destination.length = sizeof(sa_family_t) + 2;
  EXPECT_EQ(EgressVerdict(sandbox_, destination), EACCES);
  policy_.unix_sockets = true;
  EXPECT_EQ(EgressVerdict(sandbox_, destination), 0);
}

// In the host's network namespace an abstract name is the host's: refused
// under "egress": "deny" even where unix sockets are allowed; a path (a
// file in the container) is not.
TEST_F(NetworkHandlers, AbstractUnixNamesInTheHostsNamespaceAreRefused) {
  policy_.unix_sockets = true;
  ASSERT_TRUE(policy_.egress_default_deny);
  Destination abstract;
  auto* un = reinterpret_cast<sockaddr_un*>(&abstract.address);
  un->sun_family = AF_UNIX;
  std::memcpy(un->sun_path + 1, "host-agent", 10);
  abstract.length = offsetof(sockaddr_un, sun_path) + 11;
  EXPECT_EQ(EgressVerdict(sandbox_, abstract), EACCES);
  EXPECT_EQ(BindVerdict(sandbox_, abstract), EACCES);
  Destination path;
  auto* named = reinterpret_cast<sockaddr_un*>(&path.address);
  named->sun_family = AF_UNIX;
  std::memcpy(named->sun_path, "/tmp/s", 7);
  path.length = offsetof(sockaddr_un, sun_path) + 7;
  EXPECT_EQ(EgressVerdict(sandbox_, path), 0);
  sandbox_.own_network = true;  // the container's own namespace: its own names
  EXPECT_EQ(EgressVerdict(sandbox_, abstract), 0);
  EXPECT_EQ(BindVerdict(sandbox_, abstract), 0);
}

TEST_F(NetworkHandlers, BadAddressesFailAsTheKernelWould) {
  UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const auto fd = static_cast<std::uint64_t>(socket.Get());
  EXPECT_EQ(Call(SYS_connect, {fd, 0x1, sizeof(sockaddr_in)}).error, EFAULT);
  EXPECT_EQ(Call(SYS_connect, {fd, kAddress, 4096}).error, EINVAL);
  EXPECT_EQ(Call(SYS_connect, {fd, kAddress, 1}).error, EINVAL);
  // Too short for its family: EINVAL, as from the kernel, not the policy's
  // refusal (the deny-all policy would say ENETUNREACH).
  ASSERT_TRUE(tracee_.WriteObject(kAddress, Loopback(listener_.port + 1)));
  EXPECT_EQ(Call(SYS_connect, {fd, kAddress, sizeof(sockaddr_in) - 1}).error, EINVAL);
  sockaddr_in6 in6{.sin6_family = AF_INET6, .sin6_port = htons(9)};
  ASSERT_TRUE(tracee_.WriteObject(kAddress, in6));
  EXPECT_EQ(Call(SYS_connect, {fd, kAddress, 23}).error, EINVAL);
}

TEST_F(NetworkHandlers, StaleNotificationDoesNothing) {
  UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, Loopback(listener_.port)));
  tracee_.valid = false;
  Verdict verdict =
      Call(SYS_connect, {static_cast<std::uint64_t>(socket.Get()), kAddress, sizeof(sockaddr_in)});
  EXPECT_EQ(verdict.kind, Verdict::Kind::kStale);
  sockaddr_in peer{};
  socklen_t size = sizeof peer;
  EXPECT_NE(::getpeername(socket.Get(), reinterpret_cast<sockaddr*>(&peer), &size), 0);
}

}  // namespace
}  // namespace vigil::sentry
