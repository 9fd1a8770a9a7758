#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RdmaTest, OneLinePerDevice) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V2("unified", {"rdma"})};
  tree.File("unified/c/rdma.max");
  config::Resources r;
  r.rdma["mlx4_0"] = {.hca_handles = 2, .hca_objects = 2000};
  r.rdma["mlx5_1"] = {.hca_handles = 3};
  ASSERT_TRUE(Cgroup::Open(h, "/c", fs).Apply(r));
  EXPECT_THAT(
      fs.WritesTo(tree.Path("unified/c/rdma.max")),
      ElementsAre("mlx4_0 hca_handle=2 hca_object=2000", "mlx5_1 hca_handle=3 hca_object=max"));
}

TEST(RdmaTest, ErrorsNameTheDevice) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("memory", {"memory"})};
  config::Resources r;
  r.rdma["mlx4_0"] = {.hca_handles = 2};
  EXPECT_THAT(Cgroup::Open(h, "/c", fs).Apply(r).error().message,
              HasSubstr("linux.resources.rdma[\"mlx4_0\"]: the rdma cgroup controller is not "
                        "available"));
  r.rdma.clear();
  r.rdma["bad name"] = {};
  EXPECT_THAT(Cgroup::Open(h, "/c", fs).Apply(r).error().message,
              HasSubstr("linux.resources.rdma[\"bad name\"]: not a device name"));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
