#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/device_rules.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup {
namespace {

using ::testing::ElementsAre;
using testing::FakeFs;
using testing::FakeTree;
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
}

TEST(DeviceRulesForTest, ConfigThenDefaultsThenNodes) {
  std::vector<config::DeviceRule> configured = {Rule(false, "", std::nullopt, std::nullopt, "rwm"),
                                                Rule(true, "c", 10, 200, "rwm")};
  std::vector<config::Device> nodes = {
      {.type = "c", .path = "/dev/null", .major = 1, .minor = 3},
      {.type = "b", .path = "/dev/sda", .major = 8, .minor = 0},
      {.type = "u", .path = "/dev/u", .major = 4, .minor = 1},
      {.type = "p", .path = "/dev/fifo"},
      {.type = "c", .path = "/dev/tun", .major = 10, .minor = 200},  // already allowed
  };
  std::vector<std::string> lines;
  for (const auto& rule : DeviceRulesFor(configured, nodes)) {
    lines.push_back((rule.allow ? "allow " : "deny ") + V1DeviceLines(rule).front());
  }
  EXPECT_THAT(lines, ElementsAre("deny a", "allow c 10:200 rwm", "allow c *:* m", "allow b *:* m",
                                 "allow c 136:* rwm", "allow c 5:2 rwm", "allow c 1:3 rwm",
                                 "allow b 8:0 rwm", "allow c 4:1 rwm"));
}

class DevicesTest : public ::testing::Test {
 protected:
  Result<void> Apply(std::vector<config::DeviceRule> rules) {
    config::Resources r;
    r.devices = std::move(rules);
    return Cgroup::Open(hierarchies_, "/c", fs_).Apply(r);
  }
  FakeTree tree_;
  FakeFs fs_;
  std::vector<Hierarchy> hierarchies_;
};

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
  ASSERT_TRUE(Apply(DeviceRulesFor({Rule(false, "", std::nullopt, std::nullopt, "rwm")},
                                   {{.type = "c", .path = "/dev/null", .major = 1, .minor = 3}})));
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
}  // namespace vigil::runtime::cgroup
