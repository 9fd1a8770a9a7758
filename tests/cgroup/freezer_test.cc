#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FreezerV1Test, FreezeThawAndState) {
  FakeTree tree;
  FakeFs fs;
  // Hybrid: the v1 freezer wins over cgroup.freeze.
  std::vector<Hierarchy> h = {tree.V1("freezer", {"freezer"}), tree.V2("unified", {"hugetlb"})};
  tree.File("freezer/c/freezer.state", "THAWED\n");
  tree.File("freezer/c/freezer.self_freezing", "0\n");
  Cgroup cg = Cgroup::Open(h, "/c", fs);
  EXPECT_FALSE(*cg.Frozen());
  ASSERT_TRUE(cg.Freeze());
  tree.File("freezer/c/freezer.self_freezing", "1\n");
  EXPECT_TRUE(*cg.Frozen());
  ASSERT_TRUE(cg.Thaw());
  EXPECT_FALSE(*cg.Frozen());
  EXPECT_THAT(fs.WritesTo(tree.Path("freezer/c/freezer.state")), ElementsAre("FROZEN", "THAWED"));
  EXPECT_THAT(fs.WritesUnder(tree.Path("unified/c")), ::testing::IsEmpty());
}

TEST(FreezerV1Test, FrozenByAnAncestorIsNotPaused) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("freezer", {"freezer"})};
  tree.File("freezer/c/freezer.state", "FROZEN\n");
  tree.File("freezer/c/freezer.self_freezing", "0\n");
  EXPECT_FALSE(*Cgroup::Open(h, "/c", fs).Frozen());
}

TEST(FreezerV1Test, StuckFreezingThawsAndFails) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("freezer", {"freezer"})};
  tree.File("freezer/c/freezer.state", "THAWED\n");
  fs.stored_instead[tree.Path("freezer/c/freezer.state")] = "FREEZING\n";
  auto r = Cgroup::Open(h, "/c", fs).Freeze();
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("freezer.state stayed FREEZING"));
  std::vector<std::string> writes = fs.WritesTo(tree.Path("freezer/c/freezer.state"));
  EXPECT_EQ(writes.back(), "THAWED");
  EXPECT_EQ(std::count(writes.begin(), writes.end(), "FROZEN"), 1000);
}

TEST(FreezerV2Test, FreezeWaitsForCgroupEvents) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V2("unified", {"memory"})};
  tree.File("unified/c/cgroup.freeze", "0\n");
  tree.File("unified/c/cgroup.events", "populated 1\nfrozen 1\n");
  Cgroup cg = Cgroup::Open(h, "/c", fs);
  EXPECT_FALSE(*cg.Frozen());  // frozen 1 but not requested: an ancestor's doing
  ASSERT_TRUE(cg.Freeze());
  EXPECT_TRUE(*cg.Frozen());
  tree.File("unified/c/cgroup.events", "populated 1\nfrozen 0\n");
  EXPECT_FALSE(*cg.Frozen());  // requested, still freezing
  ASSERT_TRUE(cg.Thaw());
  EXPECT_THAT(fs.WritesTo(tree.Path("unified/c/cgroup.freeze")), ElementsAre("1", "0"));
}

TEST(FreezerTest, NoFreezerAnywhere) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("memory", {"memory"})};
  EXPECT_THAT(Cgroup::Open(h, "/c", fs).Freeze().error().message,
              HasSubstr("the freezer cgroup controller is not available on this host"));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
