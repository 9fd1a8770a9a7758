#include "runtime/cgroup/hierarchy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;

// This host's layout: v1 controllers each on their own mount, name=systemd,
// and a cgroup2 mount holding only hugetlb.
constexpr char kHybridMountinfo[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
    "38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
constexpr char kHybridProcCgroup[] =
    "9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n5:devices:/\n"
    "4:memory:/process_api/26bc\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n";

TEST(ParseHierarchiesTest, Hybrid) {
  std::vector<Hierarchy> h = ParseHierarchies(kHybridMountinfo, kHybridProcCgroup);
  ASSERT_EQ(h.size(), 10u);
  EXPECT_EQ(h[3].mount_point, "/sys/fs/cgroup/memory");
  EXPECT_FALSE(h[3].v2);
  EXPECT_THAT(h[3].controllers, ElementsAre("memory"));
  EXPECT_EQ(h[3].own_path, "/process_api/26bc");
  EXPECT_THAT(h[8].controllers, ElementsAre("name=systemd"));
  EXPECT_TRUE(h[9].v2);
  EXPECT_EQ(h[9].own_path, "/");
}

TEST(ParseHierarchiesTest, FindControllerPrefersV1) {
  std::vector<Hierarchy> h = ParseHierarchies(kHybridMountinfo, kHybridProcCgroup);
  h[9].controllers = {"hugetlb", "memory"};  // as DiscoverHierarchies would fill it
  EXPECT_EQ(FindController(h, "memory")->mount_point, "/sys/fs/cgroup/memory");
  EXPECT_EQ(FindController(h, "hugetlb")->mount_point, "/sys/fs/cgroup/unified");
  EXPECT_EQ(FindController(h, "net_cls"), nullptr);
  EXPECT_TRUE(h[9].Has("hugetlb"));
  EXPECT_FALSE(h[9].Has("pids"));
}

TEST(ParseHierarchiesTest, CoMountedAndOptions) {
  std::vector<Hierarchy> h = ParseHierarchies(
      "1 0 0:1 / /cg/cpu,cpuacct rw - cgroup cgroup rw,cpuacct,cpu,clone_children\n"
      "2 0 0:2 / /cg/cpuset rw - cgroup cgroup rw,cpuset,cpuset_v2_mode,noprefix\n",
      "2:cpu,cpuacct:/a\n1:cpuset:/b\n");
  ASSERT_EQ(h.size(), 2u);
  EXPECT_THAT(h[0].controllers, ElementsAre("cpuacct", "cpu"));
  EXPECT_EQ(h[0].own_path, "/a");
  EXPECT_THAT(h[1].controllers, ElementsAre("cpuset"));
}

TEST(ParseHierarchiesTest, DuplicateMountsListedOnce) {
  std::vector<Hierarchy> h = ParseHierarchies(
      "1 0 0:1 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "2 0 0:1 / /other/memory rw - cgroup cgroup rw,memory\n"
      "3 0 0:2 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
      "4 0 0:2 / /mnt/unified rw - cgroup2 cgroup2 rw\n",
      "1:memory:/\n0::/\n");
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].mount_point, "/sys/fs/cgroup/memory");
  EXPECT_EQ(h[1].mount_point, "/sys/fs/cgroup/unified");
}

TEST(ParseHierarchiesTest, SubtreeMountMakesOwnPathRelative) {
  std::vector<Hierarchy> h = ParseHierarchies(
      "1 0 0:1 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "0::/docker/abc/sub\n");
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].own_path, "/sub");
}

TEST(ParseHierarchiesTest, PureV2) {
  std::vector<Hierarchy> h =
      ParseHierarchies("30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n",
                       "0::/user.slice/session-1.scope\n");
  ASSERT_EQ(h.size(), 1u);
  EXPECT_TRUE(h[0].v2);
  EXPECT_EQ(h[0].own_path, "/user.slice/session-1.scope");
}

TEST(ParseHierarchiesTest, EscapedMountPoint) {
  std::vector<Hierarchy> h =
      ParseHierarchies("1 0 0:1 / /a\\040b rw - cgroup cgroup rw,pids\n", "1:pids:/\n");
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].mount_point, "/a b");
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
