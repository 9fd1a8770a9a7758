#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

config::Network Both() {
  return config::Network{
      .class_id = 0x100001,
      .priorities = {{.name = "eth0", .priority = 5}, {.name = "lo", .priority = 1}}};
}

TEST(NetworkTest, NetClsAndNetPrio) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("net_cls,net_prio", {"net_cls", "net_prio"})};
  tree.File("net_cls,net_prio/c/net_cls.classid");
  tree.File("net_cls,net_prio/c/net_prio.ifpriomap");
  config::Resources r;
  r.network = Both();
  ASSERT_TRUE(Cgroup::Open(h, "/c", fs).Apply(r));
  EXPECT_THAT(fs.WritesUnder(tree.Path("net_cls,net_prio/c")),
              ElementsAre("net_cls.classid=1048577", "net_prio.ifpriomap=eth0 5",
                          "net_prio.ifpriomap=lo 1"));
}

TEST(NetworkTest, AbsentControllersNameTheField) {
  // This host: no net_cls or net_prio mounted.
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("memory", {"memory"}), tree.V2("unified", {"hugetlb"})};
  config::Resources r;
  r.network = Both();
  EXPECT_THAT(Cgroup::Open(h, "/c", fs).Apply(r).error().message,
              HasSubstr("linux.resources.network.classID: the net_cls cgroup controller is not "
                        "available on this host"));
  r.network->class_id.reset();
  EXPECT_THAT(Cgroup::Open(h, "/c", fs).Apply(r).error().message,
              HasSubstr("linux.resources.network.priorities[0]: the net_prio cgroup controller"));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
