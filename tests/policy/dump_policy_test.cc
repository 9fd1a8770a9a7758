#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/policy/policy.h"

namespace vigil::config {
namespace {

using ::testing::HasSubstr;

// DumpPolicy(policy) parsed back.
Policy RoundTrip(const Policy& policy) {
  std::string dumped = DumpPolicy(policy);
  Result<Policy> parsed = ParsePolicy(dumped);
  EXPECT_TRUE(parsed) << parsed.error().message << "\n" << dumped;
  return parsed ? *parsed : Policy{.name = "unparsable"};
}

TEST(DumpPolicyTest, RoundTripsDefaults) {
  Policy p;
  EXPECT_EQ(RoundTrip(p), p);
}

TEST(DumpPolicyTest, RoundTripsEveryProperty) {
  Result<Policy> p = ParsePolicy(R"({
    "name": "everything",
    "files": {"default": "hidden", "rules": [
      {"path": "/etc/shadow", "access": "deny"}, {"path": "/tmp/**", "access": "write"},
      {"path": "/", "access": "read"}]},
    "network": {"egress": "deny", "unix": false, "allow": [
      {"cidr": "10.0.0.0/8", "ports": [80, "8000-8080", "0-65535"]},
      {"cidr": "192.0.2.1"}, {"cidr": "2001:db8::/32", "ports": ["53"]}, {"cidr": "::/0"}]},
    "exec": {"allow": ["/usr/bin/*"], "fromWritable": false},
    "readOnlyRoot": true, "noSetuid": true, "noexecWritable": true, "audit": "off"
  })");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(RoundTrip(*p), *p);
}

TEST(DumpPolicyTest, RoundTripsEveryBuiltin) {
  for (std::string_view name : BuiltinPolicyNames()) {
    Result<Policy> p = BuiltinPolicy(name);
    ASSERT_TRUE(p) << name;
    EXPECT_EQ(RoundTrip(*p), *p) << name;
  }
}

TEST(DumpPolicyTest, WritesEveryDecision) {
  // False and empty values are written too: a dump states the whole policy.
  std::string dumped = DumpPolicy(Policy{});
  std::erase_if(dumped, [](char c) { return c == ' ' || c == '\t' || c == '\n'; });
  for (const char* expected :
       {R"("name":"custom")", R"("files":{"default":"write","rules":[]})",
        R"("network":{"egress":"allow","allow":[],"unix":true})",
        R"("exec":{"allow":[],"fromWritable":true})", R"("readOnlyRoot":false)",
        R"("noSetuid":false)", R"("noexecWritable":false)", R"("audit":"all")"}) {
    EXPECT_THAT(dumped, HasSubstr(expected));
  }
}

TEST(DumpPolicyTest, WritesPortsAndCidrsCompactly) {
  Policy p;
  p.egress_default_deny = true;
  Cidr ten{.family = AF_INET, .address = {10}, .prefix = 8};
  p.egress.push_back({ten, {{80, 80}, {8000, 8080}}});
  EXPECT_EQ(RoundTrip(p), p);
  std::string dumped = DumpPolicy(p);
  EXPECT_THAT(dumped, HasSubstr("\"10.0.0.0/8\""));
  EXPECT_THAT(dumped, HasSubstr("80,"));
  EXPECT_THAT(dumped, HasSubstr("\"8000-8080\""));
}

}  // namespace
}  // namespace vigil::config
