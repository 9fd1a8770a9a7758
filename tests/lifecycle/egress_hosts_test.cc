// Egress allow entries by DNS name, resolved at create: one rule per
// address, the name and ports kept; other rules untouched; a name that
// does not resolve names its entry.
#include "lifecycle/egress_hosts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include "config/policy/cidr.h"

namespace vigil::lifecycle {
namespace {

using ::testing::Contains;

config::Policy Parsed(const char* json) {
  Result<config::Policy> policy = config::ParsePolicy(json);
  EXPECT_TRUE(policy) << policy.error().message;
  return policy ? *policy : config::Policy{};
}

TEST(ResolveEgressHostsTest, ANameBecomesOneRulePerAddressKeepingItsPorts) {
  config::Policy policy = Parsed(R"({"network": {"egress": "deny", "allow": [
      {"cidr": "10.0.0.0/8"}, {"host": "localhost", "ports": [8080]}]}})");
  ASSERT_TRUE(ResolveEgressHosts(policy));
  ASSERT_GE(policy.egress.size(), 2u);
  EXPECT_EQ(config::FormatCidr(policy.egress[0].cidr), "10.0.0.0/8");
  EXPECT_EQ(policy.egress[0].host, "");
  std::vector<std::string> addresses;
  for (std::size_t i = 1; i < policy.egress.size(); ++i) {
    EXPECT_EQ(policy.egress[i].host, "localhost");
    ASSERT_EQ(policy.egress[i].ports.size(), 1u);
    EXPECT_EQ(policy.egress[i].ports[0].first, 8080);
    EXPECT_NE(policy.egress[i].cidr.family, AF_UNSPEC);
    addresses.push_back(config::FormatCidr(policy.egress[i].cidr));
  }
  EXPECT_THAT(addresses, Contains("127.0.0.1/32"));
  // Resolved rules are left alone by a second pass (exec reads them back).
  const config::Policy once = policy;
  ASSERT_TRUE(ResolveEgressHosts(policy));
  EXPECT_EQ(policy, once);
}

TEST(ResolveEgressHostsTest, ANameThatDoesNotResolveNamesItsEntry) {
  config::Policy policy = Parsed(R"({"network": {"egress": "deny", "allow": [
      {"cidr": "10.0.0.0/8"}, {"host": "no-such-host.invalid"}]}})");
  Result<void> resolved = ResolveEgressHosts(policy);
  ASSERT_FALSE(resolved);
  EXPECT_THAT(resolved.error().message,
              ::testing::StartsWith(
                  R"(policy.network.allow[1].host: "no-such-host.invalid" does not resolve: )"));
}

// Resolved once, a wildcard would hold nothing: it needs the sandbox's
// own resolver, and create says so.
TEST(ResolveEgressHostsTest, AWildcardIsRefusedNamingItsEntry) {
  config::Policy policy = Parsed(R"({"network": {"egress": "deny", "allow": [
      {"host": "*.example.com"}]}})");
  Result<void> resolved = ResolveEgressHosts(policy);
  ASSERT_FALSE(resolved);
  EXPECT_THAT(resolved.error().message,
              ::testing::StartsWith(R"(policy.network.allow[0].host: "*.example.com" is a )"
                                    R"(wildcard, which only the sandbox's own resolver follows)"));
}

}  // namespace
}  // namespace vigil::lifecycle
