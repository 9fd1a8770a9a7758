// Where container state lives without --root, and the check that keeps a
// user's state out of a directory someone else made.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "runtime/container/state_dir.h"
#include "tests/support/temp_dir.h"

namespace vigil::runtime {
namespace {

using ::testing::HasSubstr;

TEST(DefaultStateRootTest, TheHostsRootKeepsRunVigil) {
  EXPECT_EQ(DefaultStateRoot(true, 0, "/run/user/0", "/var/tmp"), "/run/vigil");
}

TEST(DefaultStateRootTest, AUserGetsItsRuntimeDirectory) {
  EXPECT_EQ(DefaultStateRoot(false, 1001, "/run/user/1001", ""), "/run/user/1001/vigil");
}

// Podman as a user runs its runtime as root of a user namespace of its own.
TEST(DefaultStateRootTest, RootOfAnotherUserNamespaceIsAUser) {
  EXPECT_EQ(DefaultStateRoot(false, 0, "/run/user/1001", ""), "/run/user/1001/vigil");
}

TEST(DefaultStateRootTest, AUserWithoutOneGetsADirectoryOfItsOwnInTmp) {
  EXPECT_EQ(DefaultStateRoot(false, 1001, "", ""), "/tmp/vigil-1001");
  EXPECT_EQ(DefaultStateRoot(false, 1001, "", "/var/tmp"), "/var/tmp/vigil-1001");
}

class StateRootTest : public ::testing::Test {
 protected:
  test::TempDir temp_{"state-root"};
  const std::string dir_ = temp_.path();
};

TEST_F(StateRootTest, ANewRootIsMadePrivate) {
  const std::string root = dir_ + "/new";
  Result<StateDir> created = StateDir::Create(root, "c1");
  ASSERT_TRUE(created) << created.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(root.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}

TEST_F(StateRootTest, ARootOthersMayWriteIsRefused) {
  const std::string root = dir_ + "/shared";
  ASSERT_EQ(::mkdir(root.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(root.c_str(), 01777), 0);
  Result<StateDir> created = StateDir::Create(root, "c1");
  ASSERT_FALSE(created);
  EXPECT_THAT(created.error().message, HasSubstr("state root " + root + " is not a directory"));
  EXPECT_THAT(created.error().message, HasSubstr("mode 01777"));
  EXPECT_FALSE(std::filesystem::exists(root + "/c1"));
}

TEST_F(StateRootTest, ARootOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  const std::string root = dir_ + "/theirs";
  ASSERT_EQ(::mkdir(root.c_str(), 0700), 0);
  ASSERT_EQ(::chown(root.c_str(), 4242, 4242), 0);
  Result<StateDir> created = StateDir::Create(root, "c1");
  ASSERT_FALSE(created);
  EXPECT_THAT(created.error().message, HasSubstr("(owner 4242"));
}

TEST_F(StateRootTest, ASymlinkInPlaceOfTheRootIsRefused) {
  const std::string real = dir_ + "/real";
  ASSERT_EQ(::mkdir(real.c_str(), 0700), 0);
  const std::string root = dir_ + "/link";
  ASSERT_EQ(::symlink(real.c_str(), root.c_str()), 0);
  Result<StateDir> created = StateDir::Create(root, "c1");
  ASSERT_FALSE(created);
  EXPECT_THAT(created.error().message, HasSubstr("is not a directory"));
}

}  // namespace
}  // namespace vigil::runtime
