#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"
#include "tests/cgroup/resources_fixture.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class HugetlbTest : public FamilyTest<&config::Resources::hugepage_limits> {};

TEST_F(HugetlbTest, HybridWritesToCgroup2) {
  // This host: memory on v1, hugetlb only on the cgroup2 mount.
  hierarchies_ = {tree_.V1("memory", {"memory"}), tree_.V2("unified", {"hugetlb"})};
  tree_.File("unified/c/cgroup.controllers", "hugetlb\n");
  tree_.File("unified/c/hugetlb.2MB.max");
  tree_.File("unified/c/hugetlb.2MB.rsvd.max");
  tree_.File("unified/c/hugetlb.1GB.max");
  ASSERT_TRUE(Apply({{.page_size = "2MB", .limit = 4194304}, {.page_size = "1GB", .limit = 0}}));
  EXPECT_THAT(
      fs_.WritesUnder(tree_.Path("unified/c")),
      ElementsAre("hugetlb.2MB.max=4194304", "hugetlb.2MB.rsvd.max=4194304", "hugetlb.1GB.max=0"));
}

TEST_F(HugetlbTest, V1) {
  hierarchies_ = {tree_.V1("hugetlb", {"hugetlb"})};
  tree_.File("hugetlb/c/hugetlb.2MB.limit_in_bytes");
  tree_.File("hugetlb/c/hugetlb.2MB.rsvd.limit_in_bytes");
  ASSERT_TRUE(Apply({{.page_size = "2MB", .limit = 2097152}}));
  EXPECT_THAT(
      fs_.WritesUnder(tree_.Path("hugetlb/c")),
      ElementsAre("hugetlb.2MB.limit_in_bytes=2097152", "hugetlb.2MB.rsvd.limit_in_bytes=2097152"));
}

TEST_F(HugetlbTest, UnsupportedPageSize) {
  hierarchies_ = {tree_.V2("unified", {"hugetlb"})};
  tree_.Dir("unified/c");
  EXPECT_THAT(Apply({{.page_size = "16GB", .limit = 1}}).error().message,
              HasSubstr("linux.resources.hugepageLimits[0]: huge page size 16GB is not supported "
                        "on this host (no " +
                        tree_.Path("unified/c/hugetlb.16GB.max") + ")"));
  EXPECT_THAT(Apply({{.page_size = "2M", .limit = 1}}).error().message,
              HasSubstr("linux.resources.hugepageLimits[0].pageSize: expected a size like"));
  EXPECT_THAT(Apply({{.page_size = "../2MB", .limit = 1}}).error().message, HasSubstr("pageSize"));
}

TEST_F(HugetlbTest, NotEnabledInTheCgroup) {
  hierarchies_ = {tree_.V2("unified", {"hugetlb"})};
  tree_.File("unified/c/cgroup.controllers", "");
  EXPECT_THAT(
      Apply({{.page_size = "2MB", .limit = 1}}).error().message,
      HasSubstr("linux.resources.hugepageLimits[0]: the hugetlb controller is not enabled"));
}

TEST_F(HugetlbTest, NoController) {
  hierarchies_ = {tree_.V1("memory", {"memory"})};
  EXPECT_THAT(Apply({{.page_size = "2MB", .limit = 1}}).error().message,
              HasSubstr("linux.resources.hugepageLimits[0]: the hugetlb cgroup controller is not "
                        "available"));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
