#include "config/policy/landlock_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/strings.h"

namespace vigil::config {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int kAbi = 7;  // Linux 6.15 and later
constexpr std::uint64_t kWrite = kLandlockWriteClass;

Policy Parsed(std::string_view json) {
  Result<Policy> policy = ParsePolicy(json);
  EXPECT_TRUE(policy) << policy.error().message;
  return policy.value_or(Policy{});
}

TEST(LandlockRightNames, NameEachRightAndTheWriteClassAsOne) {
  EXPECT_EQ(LandlockRightNames(kLandlockWriteClass), "writes");
  EXPECT_EQ(LandlockRightNames(kLandlockWriteFile | kLandlockTruncate | kLandlockMakeReg),
            "write_file,make_reg,truncate");
  EXPECT_EQ(LandlockRightNames(kLandlockExecute | kLandlockIoctlDev), "execute,ioctl_dev");
  EXPECT_EQ(LandlockRightNames(0), "");
}

TEST(LiteralDirectory, IsTheDirectoryEveryMatchLiesBeneath) {
  EXPECT_EQ(LiteralDirectory("/tmp/**"), "/tmp");
  EXPECT_EQ(LiteralDirectory("/var/tmp/**"), "/var/tmp");
  EXPECT_EQ(LiteralDirectory("/dev/null"), "/dev");
  EXPECT_EQ(LiteralDirectory("/home/*/.ssh/**"), "/home");
  EXPECT_EQ(LiteralDirectory("/data/run-*/out"), "/data");
  EXPECT_EQ(LiteralDirectory("/data/x?/**"), "/data");
  EXPECT_EQ(LiteralDirectory("/data/[ab]"), "/data");
  EXPECT_EQ(LiteralDirectory("/data/a\\*b/**"), "/data");  // an escape is cut too
  EXPECT_EQ(LiteralDirectory("/srv/a*/b/**"), "/srv");
}

TEST(LiteralDirectory, IsTheRootWhenNothingNarrowerHoldsEveryMatch) {
  EXPECT_EQ(LiteralDirectory("/"), "/");
  EXPECT_EQ(LiteralDirectory("/**"), "/");
  EXPECT_EQ(LiteralDirectory("/work"), "/");
  EXPECT_EQ(LiteralDirectory("/*"), "/");
  EXPECT_EQ(LiteralDirectory("/*/**"), "/");
  EXPECT_EQ(LiteralDirectory("/t*/x/**"), "/");
}

TEST(LandlockRulesFor, DefaultProfileHandlesNothing) {
  Result<Policy> policy = BuiltinPolicy("default");
  ASSERT_TRUE(policy);
  EXPECT_EQ(LandlockRulesFor(*policy, kAbi), LandlockRuleset{});
  Result<Policy> audit = BuiltinPolicy("audit-only");
  ASSERT_TRUE(audit);
  EXPECT_EQ(LandlockRulesFor(*audit, kAbi), LandlockRuleset{});
}

// Write-default with hidden rules: writes are unbounded, reads too (hidden
// is the exception, not the default).
TEST(LandlockRulesFor, WriteDefaultWithHiddenRulesHandlesNothing) {
  Policy policy =
      Parsed(R"({"files": {"rules": [{"path": "/root/.ssh/**", "access": "hidden"}]}})");
  EXPECT_EQ(LandlockRulesFor(policy, kAbi), LandlockRuleset{});
}

TEST(LandlockRulesFor, AgentProfileGrantsWritesBeneathItsScratchDirectories) {
  Result<Policy> agent = BuiltinPolicy("agent");
  ASSERT_TRUE(agent);
  // The working directory's rule as ApplyPolicyToSpec adds it.
  agent->files.insert(agent->files.begin() + 15, FileRule{"/work/**", FileAccess::kWrite});
  LandlockRuleset rules = LandlockRulesFor(*agent, kAbi);
  EXPECT_EQ(rules.handled, kWrite);
  // Sound only because the sentry mediates the opens it does not see.
  EXPECT_TRUE(RestrictsFiles(*agent));
  // /dev/null and the other devices: their directory; /dev/pts is beneath it.
  EXPECT_THAT(rules.grants,
              ElementsAre(LandlockGrant{"/dev", kWrite}, LandlockGrant{"/tmp", kWrite},
                          LandlockGrant{"/var/tmp", kWrite}, LandlockGrant{"/work", kWrite}));
}

Mount MountOf(std::string destination, std::string type) {
  return Mount{.destination = std::move(destination), .type = std::move(type), .source = "x"};
}

// The trees where the kernel holds the policy's writes exactly: a "DIR/**"
// write rule with nothing else beneath it, on a filesystem of the
// container's own (tmpfs, devpts); a bind could be reached by another path.
TEST(ExactWriteTrees, AgentsScratchFilesystems) {
  Result<Policy> agent = BuiltinPolicy("agent");
  ASSERT_TRUE(agent);
  agent->files.insert(agent->files.begin() + 15, FileRule{"/work/**", FileAccess::kWrite});
  const std::vector<Mount> mounts = {MountOf("/proc", "proc"),      MountOf("/dev", "tmpfs"),
                                     MountOf("/dev/pts", "devpts"), MountOf("/dev/shm", "tmpfs"),
                                     MountOf("/tmp", "tmpfs"),      MountOf("/var/tmp", "tmpfs"),
                                     MountOf("/work", "bind")};
  EXPECT_THAT(ExactWriteTrees(*agent, mounts),
              ElementsAre("/tmp", "/var/tmp", "/dev/shm", "/dev/pts"));
  // A rule beneath that takes something away: not uniform, not exact.
  Policy policy = Parsed(R"({"files": {"default": "read", "rules": [
      {"path": "/tmp/keep", "access": "read"}, {"path": "/tmp/**", "access": "write"},
      {"path": "/var/tmp/**", "access": "write"}, {"path": "/data/*/**", "access": "write"}]}})");
  EXPECT_THAT(ExactWriteTrees(policy, mounts), ElementsAre("/var/tmp"));
  // Files not mediated at all: the kernel makes every write, no layer.
  Policy open = Parsed(R"({"files": {"rules": [{"path": "/tmp/**", "access": "write"}]}})");
  EXPECT_THAT(ExactWriteTrees(open, mounts), IsEmpty());
  open.observe = true;
  EXPECT_THAT(ExactWriteTrees(open, mounts), ElementsAre("/tmp"));
}

TEST(ExactWriteRuleset, WhatAnOpenWritesBeneathExactlyTheTrees) {
  constexpr std::uint64_t kOpens = kLandlockWriteFile | kLandlockTruncate | kLandlockMakeReg;
  LandlockRuleset layer = ExactWriteRuleset({"/tmp", "/dev/shm"}, kAbi);
  EXPECT_EQ(layer.handled, kOpens);
  EXPECT_TRUE(layer.exact);
  EXPECT_THAT(layer.grants,
              ElementsAre(LandlockGrant{"/dev/shm", kOpens}, LandlockGrant{"/tmp", kOpens}));
  // Before ABI 3 an O_TRUNC open would pass unchecked: no layer.
  EXPECT_EQ(ExactWriteRuleset({"/tmp"}, 2), LandlockRuleset{});
  EXPECT_EQ(ExactWriteRuleset({}, kAbi), LandlockRuleset{});
}

TEST(LandlockRulesFor, ReadDefaultWithoutWriteRulesRefusesEveryWrite) {
  Policy policy = Parsed(R"({"files": {"default": "read"}})");
  LandlockRuleset rules = LandlockRulesFor(policy, kAbi);
  EXPECT_EQ(rules.handled, kWrite);
  EXPECT_THAT(rules.grants, IsEmpty());
}

TEST(LandlockRulesFor, HiddenDefaultAlsoHandlesListingDirectories) {
  Policy policy = Parsed(R"({"files": {"default": "hidden", "rules": [
      {"path": "/etc/shadow", "access": "deny"},
      {"path": "/usr/**", "access": "read"},
      {"path": "/etc/passwd", "access": "read"},
      {"path": "/tmp/**", "access": "write"}]}})");
  LandlockRuleset rules = LandlockRulesFor(policy, kAbi);
  // What is hidden cannot be run either: EXECUTE beneath what is visible.
  constexpr std::uint64_t kSeen = kLandlockReadDir | kLandlockExecute;
  EXPECT_EQ(rules.handled, kWrite | kSeen);
  // Never READ_FILE: execve reads ELF and script interpreters itself.
  EXPECT_EQ(rules.handled & kLandlockReadFile, 0u);
  EXPECT_THAT(rules.grants,
              ElementsAre(LandlockGrant{"/etc", kSeen}, LandlockGrant{"/tmp", kWrite | kSeen},
                          LandlockGrant{"/usr", kSeen}));
}

TEST(LandlockRulesFor, DeniedDefaultHandlesListingDirectoriesToo) {
  Policy policy = Parsed(R"({"files": {"default": "deny", "rules": [
      {"path": "/usr/**", "access": "read"}]}})");
  LandlockRuleset rules = LandlockRulesFor(policy, kAbi);
  EXPECT_EQ(rules.handled, kWrite | kLandlockReadDir | kLandlockExecute);
  EXPECT_THAT(rules.grants,
              ElementsAre(LandlockGrant{"/usr", kLandlockReadDir | kLandlockExecute}));
}

// The kernel checks EXECUTE on every file it opens for an exec (program,
// interpreters), as the sentry checks exec.allow on each.
TEST(LandlockRulesFor, AnExecAllowListGrantsExecuteBeneathItsLiteralDirectories) {
  Policy policy = Parsed(R"({"exec": {"allow": ["/usr/bin/*", "/usr/lib/*/ld-linux-*"]}})");
  LandlockRuleset rules = LandlockRulesFor(policy, kAbi);
  EXPECT_EQ(rules.handled, kLandlockExecute);
  EXPECT_THAT(rules.grants, ElementsAre(LandlockGrant{"/usr/bin", kLandlockExecute},
                                        LandlockGrant{"/usr/lib", kLandlockExecute}));
}

// Under a hidden default an exec must pass both checks: EXECUTE is granted
// where an exec.allow directory and a visible one overlap, in the deeper.
TEST(LandlockRulesFor, ExecuteIsGrantedWhereAllowedAndVisibleOverlap) {
  Policy policy = Parsed(R"({"files": {"default": "hidden", "rules": [
      {"path": "/usr/**", "access": "read"},
      {"path": "/opt/tool/**", "access": "read"}]},
      "exec": {"allow": ["/usr/bin/*", "/opt/**", "/srv/*"]}})");
  LandlockRuleset rules = LandlockRulesFor(policy, kAbi);
  EXPECT_EQ(rules.handled, kWrite | kLandlockReadDir | kLandlockExecute);
  EXPECT_THAT(rules.grants,
              ElementsAre(LandlockGrant{"/opt/tool", kLandlockReadDir | kLandlockExecute},
                          LandlockGrant{"/usr", kLandlockReadDir},
                          LandlockGrant{"/usr/bin", kLandlockExecute}));
}

TEST(LandlockRulesFor, AnExecRuleOverTheWholeTreeLeavesExecuteUnhandled) {
  for (const char* pattern : {"/**", "/*", "/probe"}) {
    Policy policy = Parsed(StrCat(R"({"exec": {"allow": ["/usr/bin/*", ")", pattern, R"("]}})"));
    EXPECT_EQ(LandlockRulesFor(policy, kAbi), LandlockRuleset{}) << pattern;
  }
}

// fromWritable is about mounts, which Landlock does not see: left to the
// sentry and noexecWritable.
TEST(LandlockRulesFor, FromWritableAloneHandlesNothing) {
  Result<Policy> agent = BuiltinPolicy("agent");
  ASSERT_TRUE(agent);
  EXPECT_EQ(LandlockRulesFor(*agent, kAbi).handled & kLandlockExecute, 0u);
}

TEST(LandlockRulesFor, GlobsAreGrantedBeneathTheirLiteralDirectory) {
  Policy policy = Parsed(R"({"files": {"default": "read", "rules": [
      {"path": "/home/*/.cache/**", "access": "write"},
      {"path": "/data/run-?/out", "access": "write"},
      {"path": "/data/run-1/**", "access": "write"}]}})");
  LandlockRuleset rules = LandlockRulesFor(policy, kAbi);
  EXPECT_EQ(rules.handled, kWrite);
  // /data/run-1 lies beneath /data, which has the same rights.
  EXPECT_THAT(rules.grants,
              ElementsAre(LandlockGrant{"/data", kWrite}, LandlockGrant{"/home", kWrite}));
}

// The derivation does not look at the container: a missing directory is
// granted as named, and the runtime falls back to its nearest existing
// ancestor (runtime/linux/landlock.h).
TEST(LandlockRulesFor, ARuleForAMissingDirectoryIsGrantedAsNamed) {
  Policy policy = Parsed(R"({"files": {"default": "read", "rules": [
      {"path": "/no/such/dir/**", "access": "write"}]}})");
  EXPECT_THAT(LandlockRulesFor(policy, kAbi).grants,
              ElementsAre(LandlockGrant{"/no/such/dir", kWrite}));
}

// A write rule anywhere in "/" (also a read rule: what is writable is
// readable) means nothing narrower than the root holds what it grants.
TEST(LandlockRulesFor, ARuleDirectlyBeneathTheRootLeavesItsRightsUnhandled) {
  Policy policy = Parsed(R"({"files": {"default": "hidden", "rules": [
      {"path": "/tmp/**", "access": "write"},
      {"path": "/*.log", "access": "write"}]}})");
  EXPECT_EQ(LandlockRulesFor(policy, kAbi), LandlockRuleset{});
  Policy read = Parsed(R"({"files": {"default": "hidden", "rules": [
      {"path": "/tmp/**", "access": "write"},
      {"path": "/bin", "access": "read"}]}})");
  LandlockRuleset rules = LandlockRulesFor(read, kAbi);
  EXPECT_EQ(rules.handled, kWrite);
  EXPECT_THAT(rules.grants, ElementsAre(LandlockGrant{"/tmp", kWrite}));
}

TEST(LandlockRulesFor, AReadRuleOverTheWholeTreeLeavesReadsUnhandled) {
  Policy policy = Parsed(R"({"files": {"default": "hidden", "rules": [
      {"path": "/**", "access": "read"},
      {"path": "/tmp/**", "access": "write"}]}})");
  LandlockRuleset rules = LandlockRulesFor(policy, kAbi);
  EXPECT_EQ(rules.handled, kWrite);
  EXPECT_THAT(rules.grants, ElementsAre(LandlockGrant{"/tmp", kWrite}));
}

TEST(LandlockRulesFor, RightsTheAbiLacksAreLeftOut) {
  Policy policy = Parsed(R"({"files": {"default": "read", "rules": [
      {"path": "/tmp/**", "access": "write"}]}})");
  const std::uint64_t abi1 = kWrite & ~(kLandlockRefer | kLandlockTruncate);
  EXPECT_EQ(LandlockRulesFor(policy, 1).handled, abi1);
  EXPECT_THAT(LandlockRulesFor(policy, 1).grants, ElementsAre(LandlockGrant{"/tmp", abi1}));
  EXPECT_EQ(LandlockRulesFor(policy, 2).handled, abi1 | kLandlockRefer);
  EXPECT_EQ(LandlockRulesFor(policy, 3).handled, kWrite);
  EXPECT_EQ(LandlockRulesFor(policy, 0), LandlockRuleset{});
  EXPECT_EQ(LandlockRulesFor(policy, -1), LandlockRuleset{});
}

TEST(LandlockFsRights, GrowsWithTheAbi) {
  EXPECT_EQ(LandlockFsRights(0), 0u);
  EXPECT_EQ(LandlockFsRights(1), 0x1fffu);
  EXPECT_EQ(LandlockFsRights(2), 0x3fffu);
  EXPECT_EQ(LandlockFsRights(3), 0x7fffu);
  EXPECT_EQ(LandlockFsRights(4), 0x7fffu);  // ABI 4 added network rights only
  EXPECT_EQ(LandlockFsRights(5), 0xffffu);
  EXPECT_EQ(LandlockFsRights(7), 0xffffu);
}

}  // namespace
}  // namespace vigil::config
