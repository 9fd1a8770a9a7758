#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/controllers.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(PopulateCpusetTest, FillsEveryEmptyLevelFromItsParent) {
  FakeTree tree;
  FakeFs fs;
  tree.File("cpuset/cpuset.cpus", "0-7\n");
  tree.File("cpuset/cpuset.mems", "0-1\n");
  tree.File("cpuset/a/cpuset.cpus", "2-3\n");
  tree.File("cpuset/a/cpuset.mems", "\n");
  tree.File("cpuset/a/b/cpuset.cpus", "");
  tree.File("cpuset/a/b/cpuset.mems", "");
  ASSERT_TRUE(PopulateCpuset(fs, tree.Path("cpuset"), tree.Path("cpuset/a/b")));
  EXPECT_EQ(tree.Contents("cpuset/a/cpuset.cpus"), "2-3\n");  // untouched
  EXPECT_EQ(tree.Contents("cpuset/a/cpuset.mems"), "0-1");
  EXPECT_EQ(tree.Contents("cpuset/a/b/cpuset.cpus"), "2-3");
  EXPECT_EQ(tree.Contents("cpuset/a/b/cpuset.mems"), "0-1");
}

TEST(PopulateCpusetTest, MissingFilesAreAnError) {
  FakeTree tree;
  FakeFs fs;
  tree.Dir("cpuset/a");
  EXPECT_THAT(PopulateCpuset(fs, tree.Path("cpuset"), tree.Path("cpuset/a")).error().message,
              HasSubstr("populate cpuset: open " + tree.Path("cpuset/a/cpuset.cpus")));
}

class CpusetTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    bool v2 = GetParam();
    dir_ = v2 ? "unified/c" : "cpuset/c";
    hierarchies_ = {v2 ? tree_.V2("unified", {"cpuset"}) : tree_.V1("cpuset", {"cpuset"})};
    tree_.File(dir_ + "/cpuset.cpus");
    tree_.File(dir_ + "/cpuset.mems");
  }
  Result<void> Apply(config::Cpu c) {
    config::Resources r;
    r.cpu = std::move(c);
    return Cgroup::Open(hierarchies_, "/c", fs_).Apply(r);
  }
  FakeTree tree_;
  FakeFs fs_;
  std::string dir_;
  std::vector<Hierarchy> hierarchies_;
};

TEST_P(CpusetTest, WritesCpusAndMems) {
  ASSERT_TRUE(Apply({.cpus = "0-1", .mems = "0"}));
  EXPECT_THAT(fs_.WritesUnder(tree_.Path(dir_)), ElementsAre("cpuset.cpus=0-1", "cpuset.mems=0"));
}

TEST_P(CpusetTest, EmptyIsUnset) {
  ASSERT_TRUE(Apply({}));
  EXPECT_THAT(fs_.writes, IsEmpty());
}

TEST_P(CpusetTest, KernelRefusalNamesTheField) {
  fs_.write_errors[tree_.Path(dir_ + "/cpuset.mems")] = {EINVAL};
  EXPECT_THAT(Apply({.mems = "5"}).error().message,
              HasSubstr("linux.resources.cpu.mems: write " + tree_.Path(dir_ + "/cpuset.mems") +
                        ": Invalid argument"));
}

INSTANTIATE_TEST_SUITE_P(V1AndV2, CpusetTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "v2" : "v1"; });

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
