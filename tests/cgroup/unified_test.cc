#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"
#include "tests/cgroup/resources_fixture.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class UnifiedTest : public FamilyTest<&config::Resources::unified> {};

TEST_F(UnifiedTest, PureV2WritesKeysAsGiven) {
  hierarchies_ = {tree_.V2("unified", {"memory", "pids"})};
  tree_.File("unified/c/memory.high");
  tree_.File("unified/c/cgroup.max.depth");
  ASSERT_TRUE(Apply({{"memory.high", "1G"}, {"cgroup.max.depth", "3"}}));
  EXPECT_THAT(fs_.WritesUnder(tree_.Path("unified/c")),
              ElementsAre("cgroup.max.depth=3", "memory.high=1G"));
}

TEST_F(UnifiedTest, OverridesTypedFields) {
  hierarchies_ = {tree_.V2("unified", {"pids"})};
  tree_.File("unified/c/pids.max");
  config::Resources r;
  r.pids = config::Pids{.limit = 10};
  r.unified = {{"pids.max", "20"}};
  ASSERT_TRUE(Cgroup::Open(hierarchies_, "/c", fs_).Apply(r));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("unified/c/pids.max")), ElementsAre("10", "20"));
  EXPECT_EQ(tree_.Contents("unified/c/pids.max"), "20");
}

TEST_F(UnifiedTest, HybridTakesOnlyCgroup2Controllers) {
  hierarchies_ = {tree_.V1("memory", {"memory"}), tree_.V2("unified", {"hugetlb"})};
  tree_.File("unified/c/hugetlb.2MB.max");
  ASSERT_TRUE(Apply({{"hugetlb.2MB.max", "0"}}));
  EXPECT_THAT(Apply({{"memory.high", "1G"}}).error().message,
              HasSubstr("linux.resources.unified[\"memory.high\"]: invalid configuration: the "
                        "memory controller is on a cgroup v1 hierarchy on this host, not on "
                        "cgroup2; use the typed"));
  EXPECT_THAT(Apply({{"io.max", "8:0 rbps=1"}}).error().message,
              HasSubstr("linux.resources.unified[\"io.max\"]: the io controller is not available "
                        "on this host's cgroup2 mount"));
}

TEST_F(UnifiedTest, V1OnlyHostNamesTheKey) {
  hierarchies_ = {tree_.V1("memory", {"memory"})};
  EXPECT_THAT(
      Apply({{"memory.high", "1G"}}).error().message,
      HasSubstr("linux.resources.unified[\"memory.high\"]: invalid configuration: unified keys "
                "need cgroup v2, "
                "and this host mounts only v1"));
}

TEST_F(UnifiedTest, MalformedKeys) {
  hierarchies_ = {tree_.V2("unified", {"memory"})};
  for (const char* key : {"memory", ".max", "memory.", "memory.max/../x", "../cgroup.procs"}) {
    EXPECT_THAT(Apply({{key, "1"}}).error().message,
                HasSubstr("expected a cgroup2 file name of the form CONTROLLER.PARAMETER"))
        << key;
  }
}

TEST_F(UnifiedTest, KernelRefusalNamesTheKey) {
  hierarchies_ = {tree_.V2("unified", {"memory"})};
  tree_.File("unified/c/memory.max");
  fs_.write_errors[tree_.Path("unified/c/memory.max")] = {EINVAL};
  EXPECT_THAT(Apply({{"memory.max", "lots"}}).error().message,
              HasSubstr("linux.resources.unified[\"memory.max\"]: write " +
                        tree_.Path("unified/c/memory.max") + ": Invalid argument"));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
