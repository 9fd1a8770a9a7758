#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/policy/policy.h"

namespace vigil::config {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The error message of ParsePolicy(text), or "" if it parsed.
std::string PolicyError(std::string_view text) {
  Result<Policy> policy = ParsePolicy(text);
  return policy ? "" : policy.error().message;
}

TEST(ParsePolicyTest, EmptyObjectIsTheDefaults) {
  Result<Policy> p = ParsePolicy("{}");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(*p, Policy{});
  EXPECT_EQ(p->name, "custom");
  EXPECT_EQ(p->file_default, FileAccess::kWrite);
  EXPECT_FALSE(p->egress_default_deny);
  EXPECT_TRUE(p->unix_sockets);
  EXPECT_TRUE(p->exec_from_writable);
  EXPECT_EQ(p->audit, AuditLevel::kAll);
}

TEST(ParsePolicyTest, ParsesEveryProperty) {
  Result<Policy> p = ParsePolicy(R"({
    "name": "ci-runner",
    "files": {"default": "read", "rules": [
      {"path": "/etc/shadow", "access": "hidden"},
      {"path": "/etc/ssl/private/**", "access": "deny"},
      {"path": "/tmp/**", "access": "write"},
      {"path": "/usr/**", "access": "read"}]},
    "network": {"egress": "deny", "unix": false, "allow": [
      {"cidr": "10.0.0.0/8", "ports": [80, "8000-8080", "443"]},
      {"cidr": "2001:db8::/32"}]},
    "exec": {"allow": ["/usr/bin/*", "/opt/tool/**"], "fromWritable": false},
    "readOnlyRoot": true, "noSetuid": true, "noexecWritable": true,
    "audit": "denied"
  })");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->name, "ci-runner");
  EXPECT_EQ(p->file_default, FileAccess::kRead);
  ASSERT_EQ(p->files.size(), 4u);
  EXPECT_EQ(p->files[0], (FileRule{"/etc/shadow", FileAccess::kHidden}));
  EXPECT_EQ(p->files[1], (FileRule{"/etc/ssl/private/**", FileAccess::kDenied}));
  EXPECT_EQ(p->files[2], (FileRule{"/tmp/**", FileAccess::kWrite}));
  EXPECT_EQ(p->files[3], (FileRule{"/usr/**", FileAccess::kRead}));
  EXPECT_TRUE(p->egress_default_deny);
  EXPECT_FALSE(p->unix_sockets);
  ASSERT_EQ(p->egress.size(), 2u);
  EXPECT_EQ(p->egress[0].cidr.family, AF_INET);
  EXPECT_EQ(p->egress[0].cidr.prefix, 8);
  EXPECT_EQ(p->egress[0].cidr.address[0], 10);
  ASSERT_EQ(p->egress[0].ports.size(), 3u);
  EXPECT_EQ(p->egress[0].ports[0], (PortRange{80, 80}));
  EXPECT_EQ(p->egress[0].ports[1], (PortRange{8000, 8080}));
  EXPECT_EQ(p->egress[0].ports[2], (PortRange{443, 443}));
  EXPECT_EQ(p->egress[1].cidr.family, AF_INET6);
  EXPECT_EQ(p->egress[1].cidr.prefix, 32);
  EXPECT_TRUE(p->egress[1].ports.empty());
  EXPECT_EQ(p->exec_allow, (std::vector<std::string>{"/usr/bin/*", "/opt/tool/**"}));
  EXPECT_FALSE(p->exec_from_writable);
  EXPECT_TRUE(p->read_only_root);
  EXPECT_TRUE(p->no_setuid);
  EXPECT_TRUE(p->noexec_writable);
  EXPECT_EQ(p->audit, AuditLevel::kDenied);
}

TEST(ParsePolicyTest, ParsesEachAccessAndAuditName) {
  EXPECT_EQ(ParsePolicy(R"({"files": {"default": "write"}})")->file_default, FileAccess::kWrite);
  EXPECT_EQ(ParsePolicy(R"({"files": {"default": "read"}})")->file_default, FileAccess::kRead);
  EXPECT_EQ(ParsePolicy(R"({"files": {"default": "hidden"}})")->file_default, FileAccess::kHidden);
  EXPECT_EQ(ParsePolicy(R"({"files": {"default": "deny"}})")->file_default, FileAccess::kDenied);
  EXPECT_EQ(ParsePolicy(R"({"audit": "off"})")->audit, AuditLevel::kOff);
  EXPECT_EQ(ParsePolicy(R"({"audit": "denied"})")->audit, AuditLevel::kDenied);
  EXPECT_EQ(ParsePolicy(R"({"audit": "all"})")->audit, AuditLevel::kAll);
  EXPECT_FALSE(ParsePolicy(R"({"network": {"egress": "allow"}})")->egress_default_deny);
  EXPECT_TRUE(ParsePolicy(R"({"network": {"egress": "deny"}})")->egress_default_deny);
}

TEST(ParsePolicyTest, NullReadsAsAbsent) {
  Result<Policy> p = ParsePolicy(R"({"network": {"unix": null}, "audit": null})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(*p, Policy{});
}

TEST(ParsePolicyTest, PortBounds) {
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [
      {"cidr": "0.0.0.0/0", "ports": [0, 65535, "0-65535"]}]}})"),
            "");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [
      {"cidr": "0.0.0.0/0", "ports": [65536]}]}})"),
            "policy.network.allow[0].ports[0]: expected port number in [0, 65535], got number "
            "65536");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [
      {"cidr": "0.0.0.0/0", "ports": [80, "90-80"]}]}})"),
            "policy.network.allow[0].ports[1]: port range \"90-80\" is empty (first > last)");
}

TEST(ParsePolicyErrorTest, NamesTheJsonPath) {
  EXPECT_EQ(PolicyError(R"({"files": {"rules": [
      {"path": "/a", "access": "read"}, {"path": "/b", "access": "read"},
      {"path": "/c", "access": "x"}]}})"),
            "policy.files.rules[2].access: expected one of \"read\", \"write\", \"hidden\", "
            "\"deny\", \"masked\", got string \"x\"");
  EXPECT_EQ(PolicyError(R"({"audit": "verbose"})"),
            "policy.audit: expected one of \"off\", \"denied\", \"actions\", \"all\", got string "
            "\"verbose\"");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": false}})"),
            "policy.network.egress: expected one of \"allow\", \"deny\", got boolean false");
}

// A mask is a mount made once, at start: on a literal path or a literal
// directory's tree, never a glob that may match paths made later.
TEST(ParsePolicyErrorTest, MaskedPathsMustBeLiteral) {
  Result<Policy> ok = ParsePolicy(R"({"files": {"rules": [
      {"path": "/proc/kcore", "access": "masked"}, {"path": "/proc/acpi/**", "access": "masked"}]}})");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->files[0].access, FileAccess::kMasked);
  EXPECT_EQ(MaskTarget("/proc/acpi/**"), "/proc/acpi");
  EXPECT_EQ(MaskTarget("/proc/kcore"), "/proc/kcore");
  EXPECT_EQ(PolicyError(R"({"files": {"rules": [
      {"path": "/a", "access": "read"}, {"path": "/home/*/.ssh/**", "access": "masked"}]}})"),
            "policy.files.rules[1].path: \"/home/*/.ssh/**\" cannot be masked: a mask is a mount "
            "made at start, so its path must be literal (\"/proc/kcore\") or a literal "
            "directory's tree (\"/proc/acpi/**\"), and not /");
  EXPECT_THAT(PolicyError(R"({"files": {"rules": [{"path": "/**", "access": "masked"}]}})"),
              HasSubstr("policy.files.rules[0].path: \"/**\" cannot be masked"));
}

TEST(ParsePolicyErrorTest, UnknownPropertiesAtEveryLevel) {
  EXPECT_EQ(
      PolicyError(R"({"netwrok": {}})"),
      "policy.netwrok: unknown property (expected one of: extends, name, files, network, exec, "
      "readOnlyRoot, noSetuid, noexecWritable, audit, observe, defaultLimits)");
  EXPECT_EQ(PolicyError(R"({"files": {"defualt": "read"}})"),
            "policy.files.defualt: unknown property (expected one of: default, rules)");
  EXPECT_EQ(PolicyError(R"({"files": {"rules": [{"path": "/a", "access": "read", "x": 1}]}})"),
            "policy.files.rules[0].x: unknown property (expected one of: path, access)");
  EXPECT_EQ(
      PolicyError(R"({"network": {"egress": "deny", "allow": [{"cidr": "::/0", "port": 1}]}})"),
      "policy.network.allow[0].port: unknown property (expected one of: cidr, host, ports)");
  EXPECT_EQ(PolicyError(R"({"exec": {"fromwritable": false}})"),
            "policy.exec.fromwritable: unknown property (expected one of: allow, fromWritable)");
  EXPECT_EQ(
      PolicyError(R"({"read-only-root": true})"),
      "policy[\"read-only-root\"]: unknown property (expected one of: extends, name, files, "
      "network, exec, readOnlyRoot, noSetuid, noexecWritable, audit, observe, defaultLimits)");
}

TEST(ParsePolicyErrorTest, WrongKinds) {
  EXPECT_EQ(PolicyError("[]"), "policy: expected object, got array");
  EXPECT_EQ(PolicyError(R"({"files": []})"), "policy.files: expected object, got array");
  EXPECT_EQ(PolicyError(R"({"files": {"rules": {}}})"),
            "policy.files.rules: expected array, got object");
  EXPECT_EQ(PolicyError(R"({"readOnlyRoot": "yes"})"),
            "policy.readOnlyRoot: expected boolean, got string \"yes\"");
  EXPECT_EQ(PolicyError(R"({"noSetuid": 1})"), "policy.noSetuid: expected boolean, got number 1");
  EXPECT_EQ(PolicyError(R"({"noexecWritable": "true"})"),
            "policy.noexecWritable: expected boolean, got string \"true\"");
  EXPECT_EQ(PolicyError(R"({"network": {"unix": "no"}})"),
            "policy.network.unix: expected boolean, got string \"no\"");
  EXPECT_EQ(PolicyError(R"({"exec": {"allow": "/bin/*"}})"),
            "policy.exec.allow: expected array, got string \"/bin/*\"");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [{"cidr": 10}]}})"),
            "policy.network.allow[0].cidr: expected CIDR string such as \"10.0.0.0/8\", got "
            "number 10");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [
      {"cidr": "::/0", "ports": [true]}]}})"),
            "policy.network.allow[0].ports[0]: expected port number (0-65535) or \"first-last\" "
            "range, got boolean true");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [
      {"cidr": "::/0", "ports": ["http"]}]}})"),
            "policy.network.allow[0].ports[0]: expected port number (0-65535) or \"first-last\" "
            "range, got string \"http\"");
}

TEST(ParsePolicyErrorTest, RequiredRuleProperties) {
  EXPECT_EQ(PolicyError(R"({"files": {"rules": [{"path": "/a"}]}})"),
            "policy.files.rules[0].access: required property is missing");
  EXPECT_EQ(PolicyError(R"({"files": {"rules": [{"access": "read"}]}})"),
            "policy.files.rules[0].path: required property is missing");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [{"ports": [80]}]}})"),
            R"(policy.network.allow[0]: needs "cidr" (an address block) or "host" (a DNS name))");
}

TEST(ParsePolicyErrorTest, Paths) {
  EXPECT_EQ(PolicyError(R"({"files": {"rules": [{"path": "tmp/**", "access": "write"}]}})"),
            "policy.files.rules[0].path: \"tmp/**\": must be an absolute path");
  EXPECT_EQ(PolicyError(R"({"files": {"rules": [{"path": "/a/**/b", "access": "write"}]}})"),
            "policy.files.rules[0].path: \"/a/**/b\": \"**\" is only allowed as the last "
            "component (\"/dir/**\")");
  EXPECT_EQ(PolicyError(R"({"exec": {"allow": ["/bin/sh", "bin/*"]}})"),
            "policy.exec.allow[1]: \"bin/*\": must be an absolute path");
}

TEST(ParsePolicyErrorTest, Cidrs) {
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [{"cidr": "10.0.0.0/40"}]}})"),
            "policy.network.allow[0].cidr: invalid prefix length \"40\"; expected 0 to 32");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "deny", "allow": [{"cidr": "10.1.0.0/8"}]}})"),
            "policy.network.allow[0].cidr: \"10.1.0.0/8\" has bits set beyond the /8 prefix; did "
            "you mean \"10.0.0.0/8\"?");
  EXPECT_THAT(PolicyError(R"({"network": {"egress": "deny", "allow": [{"cidr": "fe80::zz/64"}]}})"),
              StartsWith("policy.network.allow[0].cidr: invalid IPv6 address"));
}

TEST(ParsePolicyErrorTest, AllowListNeedsEgressDeny) {
  EXPECT_EQ(PolicyError(R"({"network": {"allow": [{"cidr": "10.0.0.0/8"}]}})"),
            "policy.network.allow: has no effect unless policy.network.egress is \"deny\"");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "allow", "allow": [{"cidr": "10.0.0.0/8"}]}})"),
            "policy.network.allow: has no effect unless policy.network.egress is \"deny\"");
  EXPECT_EQ(PolicyError(R"({"network": {"egress": "allow", "allow": []}})"), "");
}

TEST(ParsePolicyErrorTest, Names) {
  EXPECT_EQ(PolicyError(R"({"name": ""})"), "policy.name: must not be empty");
  EXPECT_EQ(PolicyError(R"({"name": "agent"})"),
            "policy.name: \"agent\" is a built-in profile and this policy differs from it; choose "
            "another name or remove the property");
  // The default profile's decisions are the defaults: claiming its name is
  // true of an otherwise empty policy.
  EXPECT_EQ(PolicyError(R"({"name": "default"})"), "");
  EXPECT_EQ(PolicyError(R"({"name": "default", "readOnlyRoot": true})"),
            "policy.name: \"default\" is a built-in profile and this policy differs from it; "
            "choose another name or remove the property");
}

TEST(ParsePolicyErrorTest, InvalidJson) {
  EXPECT_THAT(PolicyError("{"), StartsWith("policy: invalid JSON"));
  EXPECT_THAT(PolicyError(""), StartsWith("policy: invalid JSON"));
  EXPECT_THAT(PolicyError(R"({"audit": "all",})"), StartsWith("policy: invalid JSON"));
}

}  // namespace
}  // namespace vigil::config
