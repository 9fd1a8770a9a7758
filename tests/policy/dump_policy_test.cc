#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/strings.h"
#include "config/policy/policy.h"

namespace vigil::config {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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
        R"("network":{"egress":"allow","allow":[],"unix":true,"unixPaths":[]})",
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

// A name not resolved yet dumps as the name alone; a resolved one as its
// address with the name beside it; both read back the same.
TEST(DumpPolicyTest, RoundTripsAllowEntriesByName) {
  Result<Policy> named = ParsePolicy(
      R"({"network": {"egress": "deny", "allow": [{"host": "pypi.org", "ports": [443]}]}})");
  ASSERT_TRUE(named) << named.error().message;
  ASSERT_EQ(named->egress.size(), 1u);
  EXPECT_EQ(named->egress[0].cidr.family, AF_UNSPEC);
  EXPECT_EQ(RoundTrip(*named), *named);
  EXPECT_THAT(DumpPolicy(*named), Not(HasSubstr("cidr")));

  Policy resolved = *named;
  resolved.egress[0].cidr = Cidr{.family = AF_INET, .address = {151, 101, 0, 223}, .prefix = 32};
  EXPECT_EQ(RoundTrip(resolved), resolved);
  EXPECT_THAT(DumpPolicy(resolved), HasSubstr(R"("cidr": "151.101.0.223/32",)"));
  EXPECT_THAT(DumpPolicy(resolved), HasSubstr(R"("host": "pypi.org",)"));
}

// A DNS name, or a wildcard that stands for the first label only, once.
TEST(DumpPolicyTest, AnEntryByNameNeedsADnsName) {
  for (const char* bad : {"", "-pypi.org", "pypi..org", "py pi.org", "a/b", "*", "*.",
                          "a.*.example.com", "*.*.example.com", "**.example.com"}) {
    Result<Policy> parsed = ParsePolicy(
        StrCat(R"({"network": {"egress": "deny", "allow": [{"host": ")", bad, R"("}]}})"));
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().message,
              StrCat("policy.network.allow[0].host: \"", bad,
                     "\" is not a DNS name (nor a wildcard \"*.example.com\")"));
  }
  Result<Policy> wildcard =
      ParsePolicy(R"({"network": {"egress": "deny", "allow": [{"host": "*.example.com"}]}})");
  ASSERT_TRUE(wildcard) << wildcard.error().message;
  EXPECT_THAT(DumpPolicy(*wildcard), HasSubstr(R"("host": "*.example.com")"));
}

}  // namespace
}  // namespace vigil::config
