// Bind sources taken ahead of the mount: a source inside the container's
// rootfs (the policy's bind of the image's working directory) is resolved
// inside it, so a symlink in the image never names a host path.
#include "runtime/linux/bind_sources.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace vigil::runtime {
namespace {

namespace fs = std::filesystem;

TEST(InsideRootfs, ComparesNormalisedPaths) {
  EXPECT_TRUE(InsideRootfs("/b/rootfs/work", "/b/rootfs"));
  EXPECT_TRUE(InsideRootfs("/b/rootfs//work/", "/b/rootfs/"));
  EXPECT_TRUE(InsideRootfs("/b/rootfs", "/b/rootfs"));
  EXPECT_FALSE(InsideRootfs("/b/rootfs2/work", "/b/rootfs"));
  EXPECT_FALSE(InsideRootfs("/b/rootfs/../etc", "/b/rootfs"));
  EXPECT_FALSE(InsideRootfs("/etc", "/b/rootfs"));
}

class TakeBindSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "open_tree(OPEN_TREE_CLONE) needs CAP_SYS_ADMIN";
    char tmpl[] = "/tmp/vigil-bind-sources.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    rootfs_ = dir_ / "rootfs";
    fs::create_directories(rootfs_ / "etc");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  static ino_t InodeOf(int fd) {
    struct stat st {};
    EXPECT_EQ(::fstat(fd, &st), 0);
    return st.st_ino;
  }
  static ino_t InodeOf(const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0);
    return st.st_ino;
  }

  fs::path dir_;
  fs::path rootfs_;
};

// The image's /work -> /etc is the image's /etc, not the host's.
TEST_F(TakeBindSourceTest, AbsoluteSymlinkInTheImageStaysInTheImage) {
  fs::create_symlink("/etc", rootfs_ / "work");
  const config::Mount mount{.destination = "/work",
                            .type = "bind",
                            .source = (rootfs_ / "work").string(),
                            .options = {"rbind", "rw"}};
  Result<UniqueFd> tree = TakeBindSource(mount, rootfs_.string());
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_EQ(InodeOf(tree->Get()), InodeOf(rootfs_ / "etc"));
  EXPECT_NE(InodeOf(tree->Get()), InodeOf("/etc"));
}

// A link whose target the image lacks fails, naming the mount, rather than
// falling back to the host's path.
TEST_F(TakeBindSourceTest, SymlinkToAPathOnlyTheHostHasFails) {
  fs::create_directories(dir_ / "host-only");
  fs::create_symlink(dir_ / "host-only", rootfs_ / "work");
  const config::Mount mount{.destination = "/work",
                            .type = "bind",
                            .source = (rootfs_ / "work").string(),
                            .options = {"rbind", "rw"}};
  Result<UniqueFd> tree = TakeBindSource(mount, rootfs_.string());
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().message.find("on \"/work\""), std::string::npos) << tree.error().message;
}

// A source outside the rootfs is the operator's host path, links and all.
TEST_F(TakeBindSourceTest, SourceOutsideTheRootfsIsAHostPath) {
  fs::create_directories(dir_ / "host-data");
  fs::create_symlink(dir_ / "host-data", dir_ / "link");
  const config::Mount mount{.destination = "/data",
                            .type = "bind",
                            .source = (dir_ / "link").string(),
                            .options = {"bind"}};
  Result<UniqueFd> tree = TakeBindSource(mount, rootfs_.string());
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_EQ(InodeOf(tree->Get()), InodeOf(dir_ / "host-data"));
}

}  // namespace
}  // namespace vigil::runtime
