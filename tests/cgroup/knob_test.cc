#include "runtime/cgroup/knob.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::HasSubstr;

TEST(ParseNumberTest, NumbersAndMax) {
  EXPECT_EQ(*ParseNumber("42\n"), 42u);
  EXPECT_EQ(*ParseNumber("max"), kUnlimited);
  EXPECT_FALSE(ParseNumber(""));
  EXPECT_FALSE(ParseNumber("12abc"));
  EXPECT_FALSE(ParseNumber("-1"));
}

TEST(ParseKeyedTest, SkipsJunk) {
  auto m = ParseKeyed("cache 10\nrss 20\nbroken\nfrozen max\nweird x\n");
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m["cache"], 10u);
  EXPECT_EQ(m["rss"], 20u);
  EXPECT_EQ(m["frozen"], kUnlimited);
}

class KnobsTest : public ::testing::Test {
 protected:
  FakeTree tree_;
  FakeFs fs_;
};

TEST_F(KnobsTest, FindPrefersV1AndRequireNamesFieldAndController) {
  std::vector<Placement> placements = {
      {tree_.V2("unified", {"memory", "hugetlb"}), tree_.Path("unified/c")},
      {tree_.V1("memory", {"memory"}), tree_.Path("memory/c")},
  };
  Knobs knobs(placements, fs_);
  EXPECT_EQ(knobs.Find("memory")->dir, tree_.Path("memory/c"));
  EXPECT_EQ(knobs.Find("hugetlb")->dir, tree_.Path("unified/c"));
  EXPECT_EQ(knobs.Unified()->dir, tree_.Path("unified/c"));
  auto missing = knobs.Require("net_cls", "linux.resources.network.classID");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message,
              HasSubstr("linux.resources.network.classID: the net_cls cgroup controller is not "
                        "available on this host"));
}

TEST_F(KnobsTest, RequireOnV2ChecksTheCgroupHasTheControllerEnabled) {
  std::vector<Placement> placements = {{tree_.V2("unified", {"hugetlb"}), tree_.Path("unified/c")}};
  tree_.File("unified/c/cgroup.controllers", "\n");
  Knobs knobs(placements, fs_);
  auto r = knobs.Require("hugetlb", "linux.resources.hugepageLimits[0]");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message,
              HasSubstr("linux.resources.hugepageLimits[0]: the hugetlb controller is not enabled "
                        "in " +
                        tree_.Path("unified/c") +
                        " (the parent's cgroup.subtree_control lacks "
                        "+hugetlb)"));
  tree_.File("unified/c/cgroup.controllers", "hugetlb\n");
  EXPECT_TRUE(knobs.Require("hugetlb", "x"));
}

TEST_F(KnobsTest, WriteErrorNamesFieldAndFile) {
  std::vector<Placement> placements = {{tree_.V1("memory", {"memory"}), tree_.Path("memory/c")}};
  tree_.File("memory/c/memory.limit_in_bytes");
  fs_.write_errors[tree_.Path("memory/c/memory.limit_in_bytes")] = {EBUSY};
  Knobs knobs(placements, fs_);
  auto r = knobs.Write(placements[0], "memory.limit_in_bytes", "1", "linux.resources.memory.limit");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, EBUSY);
  EXPECT_EQ(r.error().message, "linux.resources.memory.limit: write " +
                                   tree_.Path("memory/c/memory.limit_in_bytes") +
                                   ": Device or resource busy");
}

TEST_F(KnobsTest, ReadTrimsAndParses) {
  std::vector<Placement> placements = {{tree_.V1("pids", {"pids"}), tree_.Path("pids/c")}};
  tree_.File("pids/c/pids.max", "max\n");
  tree_.File("pids/c/pids.current", "3\n");
  Knobs knobs(placements, fs_);
  EXPECT_EQ(*knobs.Read(placements[0], "pids.max"), "max");
  EXPECT_EQ(*knobs.ReadNumber(placements[0], "pids.max"), kUnlimited);
  EXPECT_EQ(*knobs.ReadNumber(placements[0], "pids.current"), 3u);
  EXPECT_TRUE(knobs.Exists(placements[0], "pids.max"));
  EXPECT_FALSE(knobs.Exists(placements[0], "pids.nope"));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
