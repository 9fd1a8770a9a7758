// linux.resources.blockIO: v1 blkio (CFQ or BFQ file names) and v2 io.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/controllers.h"
#include "tests/cgroup/fake_tree.h"
#include "tests/cgroup/resources_fixture.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

config::BlockIo Everything() {
  return config::BlockIo{
      .weight = 500,
      .weight_device = {{.major = 8, .minor = 0, .weight = 300}},
      .throttle_read_bps_device = {{.major = 8, .minor = 0, .rate = 1048576}},
      .throttle_write_bps_device = {{.major = 8, .minor = 16, .rate = 0}},
      .throttle_read_iops_device = {{.major = 8, .minor = 0, .rate = 100}},
      .throttle_write_iops_device = {{.major = 8, .minor = 0, .rate = 200}},
  };
}

TEST(BlkioWeightToIoWeightTest, RuncMapping) {
  EXPECT_EQ(BlkioWeightToIoWeight(0), 0u);
  EXPECT_EQ(BlkioWeightToIoWeight(10), 1u);
  EXPECT_EQ(BlkioWeightToIoWeight(500), 4950u);
  EXPECT_EQ(BlkioWeightToIoWeight(1000), 10000u);
}

class BlkioTest : public FamilyTest<&config::Resources::block_io> {};

TEST_F(BlkioTest, V1WithBfqNames) {
  // Kernels without CFQ (5.0+) only have the bfq weight files.
  hierarchies_ = {tree_.V1("blkio", {"blkio"})};
  for (const char* f : {"blkio.bfq.weight", "blkio.bfq.weight_device",
                        "blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
                        "blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"}) {
    tree_.File(std::string("blkio/c/") + f);
  }
  ASSERT_TRUE(Apply(Everything()));
  EXPECT_THAT(fs_.WritesUnder(tree_.Path("blkio/c")),
              ElementsAre("blkio.bfq.weight=500", "blkio.bfq.weight_device=8:0 300",
                          "blkio.throttle.read_bps_device=8:0 1048576",
                          "blkio.throttle.write_bps_device=8:16 0",
                          "blkio.throttle.read_iops_device=8:0 100",
                          "blkio.throttle.write_iops_device=8:0 200"));
}

TEST_F(BlkioTest, V1WithCfqNamesAndLeafWeights) {
  hierarchies_ = {tree_.V1("blkio", {"blkio"})};
  for (const char* f :
       {"blkio.weight", "blkio.weight_device", "blkio.leaf_weight", "blkio.leaf_weight_device"}) {
    tree_.File(std::string("blkio/c/") + f);
  }
  ASSERT_TRUE(Apply({.weight = 100,
                     .leaf_weight = 200,
                     .weight_device = {{.major = 8, .minor = 0, .weight = 0, .leaf_weight = 50}}}));
  EXPECT_THAT(
      fs_.WritesUnder(tree_.Path("blkio/c")),
      ElementsAre("blkio.weight=100", "blkio.leaf_weight=200", "blkio.leaf_weight_device=8:0 50"));
}

TEST_F(BlkioTest, V1LeafWeightWithoutCfqNamesField) {
  hierarchies_ = {tree_.V1("blkio", {"blkio"})};
  tree_.Dir("blkio/c");
  EXPECT_THAT(Apply({.leaf_weight = 200}).error().message,
              HasSubstr("linux.resources.blockIO.leafWeight: open " +
                        tree_.Path("blkio/c/blkio.leaf_weight")));
}

TEST_F(BlkioTest, V2IoWeightAndMax) {
  hierarchies_ = {tree_.V2("unified", {"io"})};
  tree_.File("unified/c/io.weight");
  tree_.File("unified/c/io.max");
  ASSERT_TRUE(Apply(Everything()));
  EXPECT_THAT(fs_.WritesUnder(tree_.Path("unified/c")),
              ElementsAre("io.weight=4950", "io.weight=8:0 2930", "io.max=8:0 rbps=1048576",
                          "io.max=8:16 wbps=max", "io.max=8:0 riops=100", "io.max=8:0 wiops=200"));
}

TEST_F(BlkioTest, V2PrefersBfqWithTheV1Scale) {
  hierarchies_ = {tree_.V2("unified", {"io"})};
  tree_.File("unified/c/io.bfq.weight");
  tree_.File("unified/c/io.weight");
  ASSERT_TRUE(Apply({.weight = 500, .weight_device = {{.major = 8, .minor = 0, .weight = 300}}}));
  EXPECT_THAT(fs_.WritesUnder(tree_.Path("unified/c")),
              ElementsAre("io.bfq.weight=500", "io.bfq.weight=8:0 300"));
}

TEST_F(BlkioTest, V2HasNoLeafWeights) {
  hierarchies_ = {tree_.V2("unified", {"io"})};
  EXPECT_THAT(Apply({.leaf_weight = 10}).error().message,
              HasSubstr("linux.resources.blockIO.leafWeight: cgroup v2 has no leaf weights"));
  EXPECT_THAT(
      Apply({.weight_device = {{.major = 1, .minor = 2, .leaf_weight = 10}}}).error().message,
      HasSubstr("linux.resources.blockIO.weightDevice[0].leafWeight: cgroup v2 has no leaf"));
}

TEST_F(BlkioTest, ThrottleErrorNamesTheEntry) {
  hierarchies_ = {tree_.V2("unified", {"io"})};
  tree_.File("unified/c/io.max");
  fs_.write_errors[tree_.Path("unified/c/io.max")] = {0, ENODEV};
  config::BlockIo b;
  b.throttle_write_iops_device = {{.major = 8, .minor = 0, .rate = 1},
                                  {.major = 9, .minor = 9, .rate = 1}};
  EXPECT_THAT(Apply(b).error().message,
              HasSubstr("linux.resources.blockIO.throttleWriteIOPSDevice[1]: write " +
                        tree_.Path("unified/c/io.max") + ": No such device"));
}

TEST_F(BlkioTest, NoControllerAnywhere) {
  hierarchies_ = {tree_.V1("memory", {"memory"}), tree_.V2("unified", {"hugetlb"})};
  EXPECT_THAT(Apply(Everything()).error().message,
              HasSubstr("linux.resources.blockIO.weight: no block I/O cgroup controller on this "
                        "host (neither a v1 blkio hierarchy nor io on the cgroup2 mount)"));
}

TEST_F(BlkioTest, ZeroWeightIsUnset) {
  hierarchies_ = {};
  EXPECT_TRUE(Apply({.weight = 0}));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
