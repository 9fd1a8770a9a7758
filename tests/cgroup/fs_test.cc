#include "runtime/cgroup/fs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>

#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::UnorderedElementsAre;

TEST(RealFsTest, MkdirReportsWhetherItMadeTheDirectory) {
  FakeTree tree;
  const Fs& fs = Fs::Real();
  EXPECT_EQ(*fs.Mkdir(tree.Path("a")), true);
  EXPECT_EQ(*fs.Mkdir(tree.Path("a")), false);
  tree.File("f");
  auto over_file = fs.Mkdir(tree.Path("f"));
  ASSERT_FALSE(over_file);
  EXPECT_EQ(over_file.error().code, EEXIST);
  EXPECT_EQ(fs.Mkdir(tree.Path("x/y")).error().code, ENOENT);
}

TEST(RealFsTest, RmdirKeepsErrno) {
  FakeTree tree;
  const Fs& fs = Fs::Real();
  EXPECT_EQ(fs.Rmdir(tree.Path("gone")).error().code, ENOENT);
  tree.Dir("d");
  EXPECT_TRUE(fs.Rmdir(tree.Path("d")));
  EXPECT_FALSE(tree.Exists("d"));
}

TEST(RealFsTest, SubdirsListsOnlyDirectories) {
  FakeTree tree;
  tree.Dir("c/one");
  tree.Dir("c/two");
  tree.File("c/cgroup.procs");
  EXPECT_THAT(*Fs::Real().Subdirs(tree.Path("c")), UnorderedElementsAre("one", "two"));
}

TEST(RealFsTest, WriteNeedsAnExistingFileAndReadReturnsIt) {
  FakeTree tree;
  const Fs& fs = Fs::Real();
  EXPECT_EQ(fs.Write(tree.Path("missing"), "1").error().code, ENOENT);
  tree.File("knob");
  ASSERT_TRUE(fs.Write(tree.Path("knob"), "42"));
  EXPECT_EQ(*fs.Read(tree.Path("knob")), "42");
  EXPECT_TRUE(fs.Exists(tree.Path("knob")));
  EXPECT_FALSE(fs.Exists(tree.Path("missing")));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
