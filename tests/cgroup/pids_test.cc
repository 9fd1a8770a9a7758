#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PidsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    bool v2 = GetParam();
    dir_ = v2 ? "unified/c" : "pids/c";
    hierarchies_ = {v2 ? tree_.V2("unified", {"pids"}) : tree_.V1("pids", {"pids"})};
    tree_.File(dir_ + "/pids.max", "max\n");
  }
  Result<void> Apply(std::int64_t limit) {
    config::Resources r;
    r.pids = config::Pids{.limit = limit};
    return Cgroup::Open(hierarchies_, "/c", fs_).Apply(r);
  }
  FakeTree tree_;
  FakeFs fs_;
  std::string dir_;
  std::vector<Hierarchy> hierarchies_;
};

TEST_P(PidsTest, LimitOrMax) {
  ASSERT_TRUE(Apply(10));
  ASSERT_TRUE(Apply(0));
  ASSERT_TRUE(Apply(-1));
  EXPECT_THAT(fs_.WritesTo(tree_.Path(dir_ + "/pids.max")), ElementsAre("10", "max", "max"));
}

TEST_P(PidsTest, MissingController) {
  hierarchies_ = {tree_.V1("memory", {"memory"})};
  EXPECT_THAT(Apply(10).error().message,
              HasSubstr("linux.resources.pids.limit: the pids cgroup controller is not available"));
}

INSTANTIATE_TEST_SUITE_P(V1AndV2, PidsTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "v2" : "v1"; });

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
