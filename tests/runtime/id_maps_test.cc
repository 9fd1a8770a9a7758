// Which id maps a user may write itself, and their text.
#include "runtime/linux/id_maps.h"

#include <gtest/gtest.h>

namespace vigil::runtime {
namespace {

using config::IdMapping;

TEST(IdMapsTest, LinesAreContainerHostSize) {
  EXPECT_EQ(MapLines({IdMapping{.container_id = 0, .host_id = 1001, .size = 1},
                      IdMapping{.container_id = 1, .host_id = 100000, .size = 65536}}),
            "0 1001 1\n1 100000 65536\n");
}

TEST(IdMapsTest, AUserWritesAMapOfItsOwnIdAlone) {
  EXPECT_TRUE(MapsOnlyOwnId({IdMapping{.container_id = 0, .host_id = 1001, .size = 1}}, 1001));
  EXPECT_FALSE(MapsOnlyOwnId({IdMapping{.container_id = 0, .host_id = 1002, .size = 1}}, 1001));
  EXPECT_FALSE(MapsOnlyOwnId({IdMapping{.container_id = 0, .host_id = 1001, .size = 2}}, 1001));
  EXPECT_FALSE(MapsOnlyOwnId({IdMapping{.container_id = 0, .host_id = 1001, .size = 1},
                              IdMapping{.container_id = 1, .host_id = 100000, .size = 65536}},
                             1001));
  EXPECT_FALSE(MapsOnlyOwnId({}, 1001));
}

}  // namespace
}  // namespace vigil::runtime
