// Naming a walked file without a readlink: only a plain path walked from
// the container's root without meeting a symlink names what it reached;
// any other walk is named by PathInRoot, and both names agree.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

namespace fs = std::filesystem;

TEST(PlainName, DropsEmptyAndDotComponents) {
  EXPECT_EQ(PlainName("/a//b/./c/"), "/a/b/c");
  EXPECT_EQ(PlainName("/"), "/");
  EXPECT_EQ(PlainName("//./"), "/");
  EXPECT_EQ(PlainName("/..a/b.."), "/..a/b..");
}

TEST(PlainName, RefusesRelativeAndClimbingPaths) {
  EXPECT_EQ(PlainName("a/b"), std::nullopt);
  EXPECT_EQ(PlainName(""), std::nullopt);
  EXPECT_EQ(PlainName("/a/../b"), std::nullopt);
  EXPECT_EQ(PlainName("/a/.."), std::nullopt);
}

class WalkNamingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vigil-walk-naming-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_path_ = tmpl;
    fs::create_directories(root_path_ + "/dir");
    std::ofstream(root_path_ + "/dir/file") << "x";
    fs::create_directory_symlink("dir", root_path_ + "/link");
    root_.Reset(::open(root_path_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(root_);
  }
  void TearDown() override { fs::remove_all(root_path_); }

  // The walk of `path` from the root, how many openat2 calls it took, and
  // the name it gives the file (NameInRoot).
  std::string Walk(const std::string& path, bool from_root, int flags = O_PATH) {
    attempts_ = 0;
    Result<WalkedFile> walked = WalkNaming(path, from_root, [&](std::uint64_t narrowing) {
      ++attempts_;
      return ResolveInRoot(root_.Get(), path, flags, narrowing);
    });
    if (!walked) return "error " + std::to_string(walked.error().code);
    named_ = walked->name.has_value();
    Result<std::string> name = NameInRoot(*walked, root_path_);
    Result<std::string> read = PathInRoot(walked->file.Get(), root_path_);
    EXPECT_TRUE(name && read);
    if (name && read) {
      EXPECT_EQ(*name, *read) << path;
    }
    return name ? *name : "unnamed";
  }

  std::string root_path_;
  UniqueFd root_;
  int attempts_ = 0;
  bool named_ = false;
};

TEST_F(WalkNamingTest, APlainWalkNamesItsFile) {
  EXPECT_EQ(Walk("/dir//./file", true), "/dir/file");
  EXPECT_TRUE(named_);
  EXPECT_EQ(attempts_, 1);
}

TEST_F(WalkNamingTest, AWalkThroughASymlinkIsMadeAgainAndNamedByReadlink) {
  EXPECT_EQ(Walk("/link/file", true), "/dir/file");
  EXPECT_FALSE(named_);
  EXPECT_EQ(attempts_, 2);
}

// lstat's walk stops at the link, which is then the file it names.
TEST_F(WalkNamingTest, ALastSymlinkNotFollowedIsTheFileItself) {
  EXPECT_EQ(Walk("/link", true, O_PATH | O_NOFOLLOW), "/link");
  EXPECT_TRUE(named_);
}

TEST_F(WalkNamingTest, OnlyAWalkFromTheContainersRootIsNamed) {
  EXPECT_EQ(Walk("/dir/file", false), "/dir/file");
  EXPECT_FALSE(named_);
  EXPECT_EQ(attempts_, 1);
  EXPECT_EQ(Walk("/dir/../dir/file", true), "/dir/file");
  EXPECT_FALSE(named_);
}

TEST_F(WalkNamingTest, AFailedPlainWalkIsTheAnswer) {
  EXPECT_EQ(Walk("/dir/none", true), "error " + std::to_string(ENOENT));
  EXPECT_EQ(attempts_, 1);
}

}  // namespace
}  // namespace vigil::sentry
