// Mount options as the init applies them: mount(2) flags, propagation,
// filesystem data, and the recursive attributes of mount_setattr(2).
#include <gtest/gtest.h>
#include <sys/mount.h>

#include "runtime/linux/mounts.h"

namespace vigil::runtime {
namespace {

TEST(MountOptions, FlagsPropagationAndData) {
  MountFlags f = ParseMountOptions({"nosuid", "noexec", "rshared", "size=1m", "mode=700"});
  EXPECT_EQ(f.flags, static_cast<unsigned long>(MS_NOSUID | MS_NOEXEC));
  EXPECT_EQ(f.propagation, static_cast<unsigned long>(MS_SHARED | MS_REC));
  EXPECT_EQ(f.data, "size=1m,mode=700");
  EXPECT_FALSE(f.bind);
}

TEST(MountOptions, RecursiveAttributesAreNotData) {
  MountFlags f = ParseMountOptions({"rbind", "rro", "rnosuid"});
  EXPECT_TRUE(f.recursive_bind);
  EXPECT_EQ(f.recursive_set, std::uint64_t{MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID});
  EXPECT_EQ(f.recursive_clear, 0u);
  EXPECT_EQ(f.data, "");
}

// A later option wins over an earlier opposite one.
TEST(MountOptions, LaterRecursiveOptionWins) {
  MountFlags f = ParseMountOptions({"rro", "rrw"});
  EXPECT_EQ(f.recursive_set, 0u);
  EXPECT_EQ(f.recursive_clear, std::uint64_t{MOUNT_ATTR_RDONLY});
}

TEST(MountOptions, AccessTimeModesReplaceEachOther) {
  MountFlags f = ParseMountOptions({"rnoatime"});
  EXPECT_EQ(f.recursive_set, std::uint64_t{MOUNT_ATTR_NOATIME});
  EXPECT_EQ(f.recursive_clear, std::uint64_t{MOUNT_ATTR__ATIME});
}

}  // namespace
}  // namespace vigil::runtime
