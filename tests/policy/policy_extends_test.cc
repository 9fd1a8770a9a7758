// "extends": a policy written as additions to a built-in profile.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/policy/policy.h"

namespace vigil::config {
namespace {

using ::testing::HasSubstr;

Policy Agent() { return *BuiltinPolicy("agent"); }

// The extension's file rules decide first, its destinations join the
// profile's, and the rest of the profile stays as it is.
TEST(PolicyExtendsTest, RulesGoFirstDestinationsJoinTheRestStays) {
  Result<Policy> extended = ParsePolicy(R"({
    "extends": "agent",
    "files": {"rules": [{"path": "/work/**", "access": "write"}]},
    "network": {"egress": "deny", "allow": [{"cidr": "10.0.0.0/8", "ports": [443]}]}
  })");
  ASSERT_TRUE(extended) << extended.error().message;
  const Policy agent = Agent();
  EXPECT_EQ(extended->name, "agent-extended");
  ASSERT_EQ(extended->files.size(), agent.files.size() + 1);
  EXPECT_EQ(extended->files.front(), (FileRule{"/work/**", FileAccess::kWrite}));
  EXPECT_TRUE(std::equal(agent.files.begin(), agent.files.end(), extended->files.begin() + 1));
  EXPECT_EQ(FileAccessFor(*extended, "/work/src/main.py"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(*extended, "/etc/passwd"), FileAccessFor(agent, "/etc/passwd"));
  EXPECT_TRUE(extended->egress_default_deny);
  ASSERT_EQ(extended->egress.size(), agent.egress.size() + 1);
  EXPECT_EQ(extended->egress.back().ports, (std::vector<PortRange>{{443, 443}}));
  EXPECT_EQ(extended->audit, agent.audit);
  EXPECT_EQ(extended->read_only_root, agent.read_only_root);
  EXPECT_EQ(extended->exec_from_writable, agent.exec_from_writable);
}

// What the extension sets replaces the profile's; its own name is kept.
TEST(PolicyExtendsTest, ScalarsItSetsReplaceTheProfiles) {
  Result<Policy> extended = ParsePolicy(
      R"({"extends": "agent", "name": "ci", "audit": "all", "exec": {"fromWritable": true}})");
  ASSERT_TRUE(extended) << extended.error().message;
  EXPECT_EQ(extended->name, "ci");
  EXPECT_EQ(extended->audit, AuditLevel::kAll);
  EXPECT_TRUE(extended->exec_from_writable);
  EXPECT_EQ(extended->files, Agent().files);
}

// The composed policy is what is dumped: it reads back equal, with no
// "extends" to compose twice.
TEST(PolicyExtendsTest, TheDumpIsTheComposedPolicy) {
  Result<Policy> extended = ParsePolicy(
      R"({"extends": "agent", "files": {"rules": [{"path": "/out/**", "access": "write"}]}})");
  ASSERT_TRUE(extended) << extended.error().message;
  const std::string dumped = DumpPolicy(*extended);
  EXPECT_THAT(dumped, ::testing::Not(HasSubstr("extends")));
  Result<Policy> again = ParsePolicy(dumped);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, *extended);
}

TEST(PolicyExtendsTest, ErrorsNameThePath) {
  Result<Policy> unknown = ParsePolicy(R"({"extends": "agnet"})");
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message,
              HasSubstr("policy.extends: unknown policy profile \"agnet\""));
  Result<Policy> number = ParsePolicy(R"({"extends": 1})");
  ASSERT_FALSE(number);
  EXPECT_THAT(number.error().message,
              HasSubstr("policy.extends: expected a built-in profile's name, got number"));
  // A built-in's name on a policy that differs from it stays refused.
  Result<Policy> named = ParsePolicy(R"({"extends": "agent", "name": "agent", "audit": "all"})");
  ASSERT_FALSE(named);
  EXPECT_THAT(named.error().message, HasSubstr("policy.name"));
}

}  // namespace
}  // namespace vigil::config
