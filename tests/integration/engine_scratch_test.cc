// The agent profile's scratch tmpfs where an engine copies files through the
// rootfs (`docker cp`): with a rootfs that is a mount of its own they are
// mounted in it on the host, so files pass both ways, and they are gone
// after delete and after a failed create; with a plain directory (which
// other containers may share) they stay in the container's namespace
// (runtime/container/engine_scratch.h). vigil only: runc has no policy
// that adds scratch space.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

class EngineScratchTest : public RuntimeTest {
 protected:
  void TearDown() override {
    RuntimeTest::TearDown();
    if (rootfs_mounted_) ::umount2((bundle_ + "/rootfs").c_str(), MNT_DETACH);
  }

  // The rootfs as an engine leaves it: a mount of its own.
  void MountRootfsOnItself() {
    const std::string rootfs = bundle_ + "/rootfs";
    ASSERT_EQ(::mount(rootfs.c_str(), rootfs.c_str(), nullptr, MS_BIND, nullptr), 0)
        << std::strerror(errno);
    rootfs_mounted_ = true;
  }

  static BundleConfig Agent(const std::string& script) {
    BundleConfig config = Script(script);
    config.readonly_root = false;
    config.annotations_json = R"({"dev.vigil.policy": "agent"})";
    return config;
  }

  // The vigil scratch tmpfs mounted beneath this test's directory, as
  // mountinfo lists them on the host.
  std::vector<std::string> ScratchMountsOnTheHost() const {
    std::vector<std::string> found;
    std::istringstream mountinfo(ReadWholeFile("/proc/self/mountinfo"));
    for (std::string line; std::getline(mountinfo, line);) {
      if (line.find(" - tmpfs vigil-scratch ") == std::string::npos) continue;
      std::istringstream fields(line);
      std::string field, mount_point;
      for (int i = 0; i < 5 && fields >> field; ++i) mount_point = field;
      if (mount_point.starts_with(dir_ + "/")) found.push_back(mount_point);
    }
    return found;
  }

  bool rootfs_mounted_ = false;
};

TEST_P(EngineScratchTest, FilesPassBothWaysThroughTheRootfsOfAnEngine) {
  MountRootfsOnItself();
  WriteConfig(Agent("sleep 1000"));
  const std::string id = NewId();
  CreateAndStart(id);
  EXPECT_THAT(ScratchMountsOnTheHost(), ::testing::UnorderedElementsAre(
                                            bundle_ + "/rootfs/tmp", bundle_ + "/rootfs/var/tmp"));
  WriteWholeFile(bundle_ + "/rootfs/tmp/in.txt", "from the host\n");
  Outcome read = Runtime({"exec", id, "cat", "/tmp/in.txt"});
  EXPECT_EQ(read.out, "from the host\n") << read;
  Outcome wrote = Runtime({"exec", id, "sh", "-c", "echo from the container >/tmp/out.txt"});
  ASSERT_TRUE(wrote.ok()) << wrote;
  EXPECT_EQ(ReadWholeFile(bundle_ + "/rootfs/tmp/out.txt"), "from the container\n");
  // Still the policy's tmpfs: nothing on it runs.
  Outcome exec = Runtime({"exec", id, "sh", "-c", "cp /bin/busybox /tmp/b && /tmp/b true"});
  EXPECT_NE(exec.status, 0) << exec;

  ASSERT_TRUE(Runtime({"delete", "--force", id}).ok());
  EXPECT_EQ(ScratchMountsOnTheHost(), std::vector<std::string>{});
  EXPECT_FALSE(std::filesystem::exists(bundle_ + "/rootfs/tmp/in.txt"));
}

// A plain directory may be shared by other containers: its scratch stays in
// the container's own namespace.
TEST_P(EngineScratchTest, APlainDirectoryRootfsKeepsItsScratchPrivate) {
  WriteConfig(Agent("echo private >/tmp/f && cat /tmp/f && grep -c ' /tmp ' /proc/self/mountinfo"));
  const std::string id = NewId();
  Child run = SpawnRuntime({"run", "--bundle", bundle_, id});
  Outcome outcome = run.Wait();
  EXPECT_EQ(outcome.out, "private\n1\n") << outcome;
  EXPECT_FALSE(std::filesystem::exists(bundle_ + "/rootfs/tmp/f"));
  EXPECT_EQ(ScratchMountsOnTheHost(), std::vector<std::string>{});
}

// A create that fails after the scratch was mounted takes it down again.
TEST_P(EngineScratchTest, AFailedCreateLeavesNoScratchMounted) {
  MountRootfsOnItself();
  BundleConfig config = Agent("true");
  config.process_extra_json = R"("terminal": true)";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created = Runtime({"create", "--bundle", bundle_, "--console-socket",
                             scratch_ + "/no-such-socket", "--pid-file", PidFile(id), id});
  EXPECT_NE(created.status, 0) << created;
  // The console socket is connected after the scratch is mounted.
  EXPECT_THAT(created.err, ::testing::HasSubstr("console socket")) << created;
  EXPECT_EQ(ScratchMountsOnTheHost(), std::vector<std::string>{});
  ExpectFailedCreateLeftNothing(id);
}

INSTANTIATE_TEST_SUITE_P(Runtimes, EngineScratchTest,
                         ::testing::Values(RuntimeUnderTest{"vigil", VIGIL_BINARY}), RuntimeName);

}  // namespace
}  // namespace vigil::integration
