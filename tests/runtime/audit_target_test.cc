// vigil audit finds a container as a Docker user names it: the whole id, a
// prefix of one id alone, or a Docker name, in every state root vigil
// knows (the kept logs of deleted containers too).
#include "cli/audit_target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/container/known_roots.h"
#include "runtime/container/state_dir.h"
#include "tests/support/temp_dir.h"

namespace vigil::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class AuditTargetTest : public ::testing::Test {
 protected:
  void Container(const std::string& root, const std::string& id) {
    std::filesystem::create_directories(root + "/" + id);
  }
  void KeptLog(const std::string& root, const std::string& id) {
    std::filesystem::create_directories(root + "/.audit");
    std::ofstream(runtime::KeptAuditLogPath(root, id)) << "";
    std::ofstream(runtime::KeptAuditLogPath(root, id) + ".1") << "";  // a rotated file
  }
  static std::optional<std::string> NoNames(std::string_view) { return std::nullopt; }

  test::TempDir temp_{"audit-target"};
  const std::string docker_ = temp_.path() + "/docker-root";
  const std::string own_ = temp_.path() + "/own-root";
};

TEST_F(AuditTargetTest, ContainersAndKeptLogsAreAuditedOnceEach) {
  Container(docker_, "aaa111");
  KeptLog(docker_, "aaa111");
  KeptLog(docker_, "bbb222");
  std::filesystem::create_directories(docker_ + "/.hidden");
  EXPECT_THAT(AuditedIds(docker_), ElementsAre("aaa111", "bbb222"));
}

TEST_F(AuditTargetTest, AShortIdFindsTheContainerInAnotherRoot) {
  Container(own_, "ccc333");
  KeptLog(docker_, "0123456789abcdef0123");
  Result<AuditTarget> found = FindAuditTarget("0123456789ab", {own_, docker_}, NoNames);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->root, docker_);
  EXPECT_EQ(found->id, "0123456789abcdef0123");
}

TEST_F(AuditTargetTest, AWholeIdWinsOverLongerIdsItBegins) {
  Container(own_, "abc");
  Container(docker_, "abcdef");
  Result<AuditTarget> found = FindAuditTarget("abc", {own_, docker_}, NoNames);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->id, "abc");
}

TEST_F(AuditTargetTest, APrefixOfSeveralIdsNamesThem) {
  Container(own_, "abc1");
  KeptLog(docker_, "abc2");
  Result<AuditTarget> found = FindAuditTarget("abc", {own_, docker_}, NoNames);
  ASSERT_FALSE(found);
  EXPECT_THAT(found.error().message, HasSubstr("begins the ids of 2 containers: abc1, abc2"));
}

TEST_F(AuditTargetTest, ADockerNameIsLookedUpAndItsIdFound) {
  Container(docker_, "fedcba9876543210");
  auto docker = [](std::string_view name) -> std::optional<std::string> {
    if (name == "web") return "fedcba9876543210";
    return std::nullopt;
  };
  Result<AuditTarget> found = FindAuditTarget("web", {own_, docker_}, docker);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->id, "fedcba9876543210");
  EXPECT_EQ(found->root, docker_);

  Result<AuditTarget> missing = FindAuditTarget("db", {own_, docker_}, docker);
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("no container \"db\""));
  EXPECT_THAT(missing.error().message, HasSubstr(docker_));
}

TEST_F(AuditTargetTest, RootsAreRememberedOnceAndForgottenWhenGone) {
  const std::string default_root = temp_.path() + "/default";
  std::filesystem::create_directories(docker_);
  std::filesystem::create_directories(own_);
  ASSERT_TRUE(runtime::RememberRoot(default_root, docker_));
  ASSERT_TRUE(runtime::RememberRoot(default_root, docker_));
  ASSERT_TRUE(runtime::RememberRoot(default_root, default_root));  // the default: not listed
  EXPECT_THAT(runtime::KnownRoots(own_, default_root), ElementsAre(own_, default_root, docker_));
  std::filesystem::remove_all(docker_);
  EXPECT_THAT(runtime::KnownRoots(own_, default_root), ElementsAre(own_, default_root));
}

}  // namespace
}  // namespace vigil::cli
