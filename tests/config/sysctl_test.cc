#include "config/oci/sysctl.h"

#include <gtest/gtest.h>

#include "config/oci/config.h"
#include "config/oci/validate.h"

namespace vigil::config {
namespace {

TEST(Sysctl, DottedAndSlashedKeysNameTheSameFile) {
  EXPECT_EQ(SysctlRelativePath("net.ipv4.ip_forward"), "net/ipv4/ip_forward");
  EXPECT_EQ(SysctlRelativePath("net/ipv4/ip_forward"), "net/ipv4/ip_forward");
  // With slashes a dot belongs to the name (a VLAN interface).
  EXPECT_EQ(SysctlRelativePath("net/ipv4/conf/eth0.100/forwarding"),
            "net/ipv4/conf/eth0.100/forwarding");
  EXPECT_EQ(DottedSysctl("net/ipv4/ip_forward"), "net.ipv4.ip_forward");
  EXPECT_EQ(DottedSysctl("kernel.shmmax"), "kernel.shmmax");
}

TEST(Sysctl, KeysThatCouldLeaveTheirDirectoryHaveNoPath) {
  for (const char* key :
       {"net/../kernel/core_pattern", "net..ipv4", "/net/ipv4", "net/ipv4/", "net/./x", "", "."}) {
    EXPECT_EQ(SysctlRelativePath(key), std::nullopt) << key;
  }
}

TEST(Sysctl, ValidationAcceptsSlashesAndRefusesEscapes) {
  const std::string base = R"({"ociVersion": "1.0.2", "root": {"path": "rootfs"},
      "process": {"cwd": "/", "args": ["sh"], "user": {"uid": 0, "gid": 0}},
      "linux": {"namespaces": [{"type": "network"}], "sysctl": )";
  auto validate = [&](const std::string& sysctl) {
    Result<Spec> spec = ParseSpec(base + sysctl + "}}");
    EXPECT_TRUE(spec) << spec.error().message;
    return spec ? Validate(*spec) : Result<void>();
  };
  Result<void> slashed = validate(R"({"net/ipv4/ip_forward": "1"})");
  EXPECT_TRUE(slashed) << slashed.error().message;
  Result<void> escape = validate(R"({"net/../kernel/core_pattern": "|/x"})");
  ASSERT_FALSE(escape);
  EXPECT_EQ(
      escape.error().message,
      R"(linux.sysctl["net/../kernel/core_pattern"]: not a sysctl name (an empty, "." or ".." component))");
  Result<void> host = validate(R"({"kernel/core_pattern": "|/x"})");
  ASSERT_FALSE(host);
  EXPECT_NE(host.error().message.find("not namespaced"), std::string::npos);
}

}  // namespace
}  // namespace vigil::config
