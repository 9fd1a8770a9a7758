#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/device_rules.h"
#include "tests/cgroup/fake_tree.h"
#include "tests/cgroup/resources_fixture.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

config::DeviceRule Rule(bool allow, std::string type, std::optional<std::int64_t> major,
                        std::optional<std::int64_t> minor, std::string access) {
  return {.allow = allow, .type = type, .major = major, .minor = minor, .access = access};
}

TEST(V1DeviceLinesTest, Spelling) {
  EXPECT_THAT(V1DeviceLines(Rule(true, "c", 1, 3, "rwm")), ElementsAre("c 1:3 rwm"));
  EXPECT_THAT(V1DeviceLines(Rule(false, "b", 8, std::nullopt, "r")), ElementsAre("b 8:* r"));
  EXPECT_THAT(V1DeviceLines(Rule(false, "", std::nullopt, std::nullopt, "rwm")), ElementsAre("a"));
  EXPECT_THAT(V1DeviceLines(Rule(true, "a", std::nullopt, std::nullopt, "")), ElementsAre("a"));
  EXPECT_THAT(V1DeviceLines(Rule(true, "c", std::nullopt, std::nullopt, "m")),
              ElementsAre("c *:* m"));
  // What "a" cannot say on v1 becomes a char and a block rule.
  EXPECT_THAT(V1DeviceLines(Rule(false, "a", 1, 3, "w")), ElementsAre("c 1:3 w", "b 1:3 w"));
  EXPECT_THAT(V1DeviceLines(Rule(false, "a", std::nullopt, std::nullopt, "r")),
              ElementsAre("c *:* r", "b *:* r"));
  // Letters the kernel does not take are dropped, as runc drops them.
  EXPECT_THAT(V1DeviceLines(Rule(false, "c", 1, 11, "rwa")), ElementsAre("c 1:11 rw"));
  EXPECT_THAT(V1DeviceLines(Rule(false, "c", 1, 11, "x")), ElementsAre());
}

TEST(DeviceRulesForTest, ConfigThenRuncsDefaults) {
  std::vector<config::DeviceRule> configured = {Rule(false, "", std::nullopt, std::nullopt, "rwm"),
                                                Rule(true, "c", 1, 11, "r")};
  std::vector<std::string> lines;
  for (const auto& rule : DeviceRulesFor(configured)) {
    lines.push_back((rule.allow ? "allow " : "deny ") + V1DeviceLines(rule).front());
  }
  EXPECT_THAT(lines, ElementsAre("deny a", "allow c 1:11 r", "allow c *:* m", "allow b *:* m",
                                 "allow c 1:3 rwm", "allow c 1:8 rwm", "allow c 1:7 rwm",
                                 "allow c 5:0 rwm", "allow c 1:5 rwm", "allow c 1:9 rwm",
                                 "allow c 136:* rwm", "allow c 5:2 rwm", "allow c 10:200 rwm"));
}

// A node linux.devices adds (here /dev/kmsg, c 1:11) opens only as far as
// the configured rules allow: the defaults that follow do not name it.
TEST(DeviceAccessAllowedTest, ANodeGetsOnlyWhatItsRulesGrant) {
  const std::vector<config::DeviceRule> rules = DeviceRulesFor(
      {Rule(false, "", std::nullopt, std::nullopt, "rwm"), Rule(true, "c", 1, 11, "r")});
  EXPECT_TRUE(DeviceAccessAllowed(rules, 'c', 1, 11, "r"));
  EXPECT_FALSE(DeviceAccessAllowed(rules, 'c', 1, 11, "w"));
  EXPECT_FALSE(DeviceAccessAllowed(rules, 'c', 1, 11, "rw"));
  EXPECT_TRUE(DeviceAccessAllowed(rules, 'c', 1, 11, "m"));  // mknod of anything
  EXPECT_TRUE(DeviceAccessAllowed(rules, 'c', 1, 3, "rw"));
  EXPECT_TRUE(DeviceAccessAllowed(rules, 'c', 136, 7, "rw"));
  EXPECT_FALSE(DeviceAccessAllowed(rules, 'b', 8, 0, "r"));
  EXPECT_FALSE(DeviceAccessAllowed(rules, 'c', 1, 1, "r"));  // /dev/mem
}

TEST(DeviceAccessAllowedTest, LaterRulesWinPerLetter) {
  const std::vector<config::DeviceRule> rules = {
      Rule(false, "a", std::nullopt, std::nullopt, "rwm"), Rule(true, "c", 1, std::nullopt, "rw"),
      Rule(false, "c", 1, 11, "w"), Rule(true, "b", 8, 0, "")};  // empty access: rwm
  EXPECT_TRUE(DeviceAccessAllowed(rules, 'c', 1, 11, "r"));
  EXPECT_FALSE(DeviceAccessAllowed(rules, 'c', 1, 11, "w"));
  EXPECT_TRUE(DeviceAccessAllowed(rules, 'c', 1, 5, "rw"));
  EXPECT_FALSE(DeviceAccessAllowed(rules, 'c', 1, 5, "m"));
  EXPECT_TRUE(DeviceAccessAllowed(rules, 'b', 8, 0, "rwm"));
  EXPECT_FALSE(DeviceAccessAllowed(rules, 'c', 8, 0, "r"));  // type matters
}

// Without a deny, a new cgroup keeps the allow-all it inherits.
TEST(DeviceAccessAllowedTest, NoDenyAllowsAll) {
  EXPECT_TRUE(DeviceAccessAllowed({Rule(false, "c", 1, 11, "w")}, 'b', 8, 0, "rwm"));
  EXPECT_FALSE(DeviceAccessAllowed({Rule(false, "c", 1, 11, "w")}, 'c', 1, 11, "w"));
}

class DevicesTest : public FamilyTest<&config::Resources::devices> {};

TEST_F(DevicesTest, V1WritesEachRuleInOrder) {
  hierarchies_ = {tree_.V1("devices", {"devices"}), tree_.V2("unified", {"hugetlb"})};
  tree_.File("devices/c/devices.allow");
  tree_.File("devices/c/devices.deny");
  ASSERT_TRUE(Apply({Rule(false, "", std::nullopt, std::nullopt, "rwm"),
                     Rule(true, "c", 1, 3, "rwm"), Rule(false, "c", 1, 3, "w")}));
  EXPECT_THAT(fs_.WritesUnder(tree_.Path("devices/c")),
              ElementsAre("devices.deny=a", "devices.allow=c 1:3 rwm", "devices.deny=c 1:3 w"));
}

TEST_F(DevicesTest, V1ErrorNamesTheRule) {
  hierarchies_ = {tree_.V1("devices", {"devices"})};
  tree_.File("devices/c/devices.allow");
  tree_.File("devices/c/devices.deny");
  fs_.write_errors[tree_.Path("devices/c/devices.allow")] = {EPERM};
  EXPECT_THAT(
      Apply({Rule(false, "a", std::nullopt, std::nullopt, "rwm"), Rule(true, "c", 1, 3, "rwm")})
          .error()
          .message,
      HasSubstr("linux.resources.devices[1]: write " + tree_.Path("devices/c/devices.allow") +
                ": Operation not permitted"));
  EXPECT_THAT(Apply({Rule(true, "x", 1, 3, "rwm")}).error().message,
              HasSubstr("linux.resources.devices[0].type: expected \"a\", \"c\" or \"b\""));
}

TEST_F(DevicesTest, V2AcceptsTheDefaultDenyAllPlusAllows) {
  hierarchies_ = {tree_.V2("unified", {"memory", "pids"})};
  ASSERT_TRUE(Apply(DeviceRulesFor({Rule(false, "", std::nullopt, std::nullopt, "rwm")})));
  ASSERT_TRUE(Apply({Rule(true, "a", std::nullopt, std::nullopt, "rwm")}));  // privileged
  EXPECT_THAT(fs_.writes, IsEmpty());
}

TEST_F(DevicesTest, V2RefusesDenyRulesItCannotEnforce) {
  hierarchies_ = {tree_.V2("unified", {"memory", "pids"})};
  EXPECT_THAT(Apply({Rule(false, "", std::nullopt, std::nullopt, "rwm"),
                     Rule(true, "c", 1, 3, "rwm"), Rule(false, "c", 1, 3, "w")})
                  .error()
                  .message,
              HasSubstr("linux.resources.devices[2]: this host has no cgroup v1 devices "
                        "controller, and on cgroup v2 deny rules need an eBPF device program"));
  // A deny-all after allows denies them again: not the harmless default.
  EXPECT_THAT(
      Apply({Rule(true, "c", 1, 3, "rwm"), Rule(false, "a", std::nullopt, std::nullopt, "rwm")})
          .error()
          .message,
      HasSubstr("linux.resources.devices[1]:"));
}

TEST_F(DevicesTest, NoRulesNoWrites) {
  hierarchies_ = {tree_.V1("devices", {"devices"})};
  ASSERT_TRUE(Apply({}));
  EXPECT_THAT(fs_.writes, IsEmpty());
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
