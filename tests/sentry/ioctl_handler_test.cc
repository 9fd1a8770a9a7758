// ioctl under a file policy, against a fake tracee whose "workload" is this
// test process: the inode-changing commands are decided on the
// descriptor's file and performed on it, the rest of their types let
// through, and the ones the sentry cannot copy the argument of refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "sentry/handlers/handler.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"

namespace vigil::sentry {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kArgument = FakeTracee::kBase;

class IoctlHandler : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vigil-ioctl-root-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    fs::create_directories(root_ + "/data");
    for (const char* name : {"/data/kept", "/data/scratch"}) std::ofstream(root_ + name) << "x\n";
    tracee_.root = root_;
    Result<config::Policy> policy = config::ParsePolicy(R"({"files": {"default": "write", "rules": [
        {"path": "/data/kept", "access": "read"}]}})");
    ASSERT_TRUE(policy) << policy.error().message;
    policy_ = *policy;
    sandbox_.policy = &policy_;
  }
  void TearDown() override { fs::remove_all(root_); }

  UniqueFd OpenReadOnly(const std::string& name) {
    return UniqueFd(::open((root_ + name).c_str(), O_RDONLY | O_CLOEXEC));
  }

  // ioctl(fd, request, kArgument) with `value` in the fake's memory; the
  // request's upper 32 bits set, which the kernel ignores and so must the
  // sentry.
  Verdict Call(int fd, unsigned int request, int value) {
    EXPECT_TRUE(tracee_.WriteObject(kArgument, value));
    SyscallEvent event{
        .tid = ::gettid(),
        .number = SYS_ioctl,
        .args = {static_cast<std::uint64_t>(fd), 0xdead000000000000ull | request, kArgument}};
    HandlerContext context{
        .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
          return Result<void>();
        }};
    return HandleAsLoop(Handler::kIoctl, context);
  }

  static int FlagsOf(int fd) {
    int flags = -1;
    EXPECT_EQ(::ioctl(fd, FS_IOC_GETFLAGS, &flags), 0) << std::strerror(errno);
    return flags;
  }

  std::string root_;
  config::Policy policy_;
  Sandbox sandbox_;
  FakeTracee tracee_;
};

TEST_F(IoctlHandler, FlagsOfAReadOnlyFileDoNotChange) {
  UniqueFd kept = OpenReadOnly("/data/kept");
  ASSERT_TRUE(kept);
  int flags = 0;
  if (::ioctl(kept.Get(), FS_IOC_GETFLAGS, &flags) != 0) GTEST_SKIP() << "no inode flags on /tmp";
  const int wanted = flags | FS_NODUMP_FL;
  EXPECT_EQ(Call(kept.Get(), FS_IOC_SETFLAGS, wanted).error, EACCES);
  EXPECT_EQ(FlagsOf(kept.Get()), flags);
  fsxattr attributes{};
  ASSERT_TRUE(tracee_.WriteObject(kArgument, attributes));
  EXPECT_EQ(Call(kept.Get(), FS_IOC_FSSETXATTR, 0).error, EACCES);
}

// Where the policy grants writing, the sentry sets the flags the workload
// copied, on the workload's own descriptor's file.
TEST_F(IoctlHandler, FlagsOfAWritableFileAreSet) {
  UniqueFd scratch = OpenReadOnly("/data/scratch");
  ASSERT_TRUE(scratch);
  int flags = 0;
  if (::ioctl(scratch.Get(), FS_IOC_GETFLAGS, &flags) != 0)
    GTEST_SKIP() << "no inode flags on /tmp";
  Verdict verdict = Call(scratch.Get(), FS_IOC_SETFLAGS, flags | FS_NODUMP_FL);
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.kind, Verdict::Kind::kReturn);
  EXPECT_EQ(FlagsOf(scratch.Get()), flags | FS_NODUMP_FL);
}

TEST_F(IoctlHandler, OtherCommandsOfTheTypesAreLetThrough) {
  UniqueFd kept = OpenReadOnly("/data/kept");
  EXPECT_EQ(Call(kept.Get(), FS_IOC_GETFLAGS, 0).kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Call(kept.Get(), FS_IOC_FSGETXATTR, 0).kind, Verdict::Kind::kContinue);
}

TEST_F(IoctlHandler, CommandsWithFurtherPointersAreRefused) {
  UniqueFd scratch = OpenReadOnly("/data/scratch");
  EXPECT_EQ(Call(scratch.Get(), FS_IOC_ENABLE_VERITY, 0).error, EOPNOTSUPP);
  EXPECT_EQ(Call(scratch.Get(), FS_IOC_SET_ENCRYPTION_POLICY, 0).error, EOPNOTSUPP);
}

TEST_F(IoctlHandler, BadDescriptorsAndPointersFailAsTheKernelWould) {
  EXPECT_EQ(Call(987, FS_IOC_SETFLAGS, 0).error, EBADF);
  UniqueFd scratch = OpenReadOnly("/data/scratch");
  SyscallEvent event{.tid = ::gettid(),
                     .number = SYS_ioctl,
                     .args = {static_cast<std::uint64_t>(scratch.Get()), FS_IOC_SETFLAGS, 0x10}};
  HandlerContext context{
      .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
        return Result<void>();
      }};
  EXPECT_EQ(HandleAsLoop(Handler::kIoctl, context).error, EFAULT);
}

TEST_F(IoctlHandler, AStaleNotificationChangesNothing) {
  UniqueFd scratch = OpenReadOnly("/data/scratch");
  int flags = 0;
  if (::ioctl(scratch.Get(), FS_IOC_GETFLAGS, &flags) != 0)
    GTEST_SKIP() << "no inode flags on /tmp";
  tracee_.valid = false;
  EXPECT_EQ(Call(scratch.Get(), FS_IOC_SETFLAGS, flags | FS_NODUMP_FL).kind, Verdict::Kind::kStale);
  EXPECT_EQ(FlagsOf(scratch.Get()), flags);
}

}  // namespace
}  // namespace vigil::sentry
