// pause --release-memory with swap on the host: the paused sandbox's
// anonymous memory leaves RAM (most of it: the goal is 10 % left) and comes
// back intact on resume. The test makes its own swap file and removes it;
// without the right to (not root, a filesystem that takes no swap file) it
// skips and says why. Registered with RUN_SERIAL (CMakeLists.txt): swap on
// the host would change what other tests' memory limits do meanwhile.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/swap.h>

#include <cstring>
#include <string>

#include "base/unique_fd.h"
#include "tests/integration/harness/paused_memory.h"
#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
constexpr off_t kSwapBytes = 512 * kMiB;

class PauseReleaseSwapTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    out_ = scratch_ + "/out";
    std::filesystem::create_directories(out_);
    swap_file_ = dir_ + "/swap";
    if (std::string why = MakeSwap(); !why.empty()) GTEST_SKIP() << "no swap file: " << why;
  }

  void TearDown() override {
    if (swapping_ && ::swapoff(swap_file_.c_str()) != 0) {
      ADD_FAILURE() << "swapoff " << swap_file_ << ": " << std::strerror(errno);
    }
    RuntimeTest::TearDown();
  }

  // Empty on success, else why not.
  std::string MakeSwap() {
    UniqueFd file(::open(swap_file_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    if (!file) return "create " + swap_file_ + ": " + std::strerror(errno);
    if (::fallocate(file.Get(), 0, 0, kSwapBytes) != 0) {
      return "fallocate " + swap_file_ + ": " + std::strerror(errno);
    }
    file.Reset();
    Outcome mkswap = Child::Spawn({"/sbin/mkswap", swap_file_}, scratch_ + "/mkswap.out",
                                  scratch_ + "/mkswap.err")
                         .Wait();
    if (!mkswap.ok()) return "mkswap: " + mkswap.err;
    if (::swapon(swap_file_.c_str(), 0) != 0) {
      return "swapon " + swap_file_ + ": " + std::strerror(errno);
    }
    swapping_ = true;
    return "";
  }

  std::string out_;
  std::string swap_file_;
  bool swapping_ = false;
};

TEST_P(PauseReleaseSwapTest, AHeapGoesToSwapAndComesBackIntact) {
  BundleConfig config = Script(HeapHolderScript(64));
  config.extra_mounts_json = {BindMountJson("/out", out_)};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(out_ + "/sum.0"); }));

  Outcome pause = Runtime({"pause", "--release-memory", id});
  ASSERT_TRUE(pause.ok()) << pause;
  std::optional<PausedMemoryView> memory = PausedMemoryIn(Runtime({"state", id}).out);
  ASSERT_TRUE(memory);
  ASSERT_TRUE(memory->released);
  // The shell's ~85 MiB of base64 (and its copy in the sum's pipe buffer
  // since freed): most of it in swap now.
  EXPECT_GE(memory->swapped, 64 * kMiB) << "swapped " << memory->swapped;
  EXPECT_LE(memory->after, memory->before / 4)
      << "before " << memory->before << ", after " << memory->after;
  EXPECT_EQ(memory->note, "");

  ASSERT_TRUE(Runtime({"resume", id}).ok());
  ASSERT_TRUE(Runtime({"kill", id, "USR1"}).ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(out_ + "/sum.1"); }));
  EXPECT_EQ(ReadWholeFile(out_ + "/sum.1"), ReadWholeFile(out_ + "/sum.0"));
}

INSTANTIATE_TEST_SUITE_P(Runtimes, PauseReleaseSwapTest,
                         ::testing::Values(RuntimeUnderTest{"vigil", VIGIL_BINARY}), RuntimeName);

}  // namespace
}  // namespace vigil::integration
