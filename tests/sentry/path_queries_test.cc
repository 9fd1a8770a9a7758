// statfs and inotify_add_watch under a file policy, against a fake tracee
// whose "workload" is this test process: the answers are the kernel's for
// the file the sentry resolved, and a hidden path is not there.
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/statfs.h>
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

constexpr std::uint64_t kPath = FakeTracee::kBase;
constexpr std::uint64_t kBuffer = FakeTracee::kBase + 4096;

class PathQueries : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vigil-queries-root-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    for (const char* dir : {"/etc/private", "/tmp"}) fs::create_directories(root_ + dir);
    std::ofstream(root_ + "/etc/motd") << "hello\n";
    tracee_.root = root_;
    Result<config::Policy> policy = config::ParsePolicy(R"({"files": {"default": "read", "rules": [
        {"path": "/etc/private/**", "access": "hidden"},
        {"path": "/tmp/**", "access": "write"}]}})");
    ASSERT_TRUE(policy) << policy.error().message;
    policy_ = *policy;
    sandbox_.policy = &policy_;
  }
  void TearDown() override { fs::remove_all(root_); }

  Verdict Call(Handler handler, int number, std::array<std::uint64_t, 6> args,
               const std::string& path) {
    EXPECT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(path.c_str(), path.size() + 1))));
    SyscallEvent event{.tid = ::gettid(), .number = number, .args = args};
    HandlerContext context{
        .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
          return Result<void>();
        }};
    return HandleAsLoop(handler, context);
  }

  Verdict Watch(int inotify, const std::string& path, std::uint32_t mask) {
    return Call(Handler::kInotifyWatch, SYS_inotify_add_watch,
                {static_cast<std::uint64_t>(inotify), kPath, mask}, path);
  }

  std::string root_;
  config::Policy policy_;
  Sandbox sandbox_;
  FakeTracee tracee_{8192};
};

TEST_F(PathQueries, StatfsAnswersForTheResolvedFile) {
  Verdict verdict = Call(Handler::kStatfs, SYS_statfs, {kPath, kBuffer}, "/etc/motd");
  ASSERT_EQ(verdict.error, 0);
  struct statfs native {};
  ASSERT_EQ(::statfs((root_ + "/etc/motd").c_str(), &native), 0);
  const auto answer = tracee_.ObjectAt<struct statfs>(kBuffer);
  EXPECT_EQ(answer.f_type, native.f_type);
  EXPECT_EQ(answer.f_bsize, native.f_bsize);
  EXPECT_EQ(answer.f_blocks, native.f_blocks);
  EXPECT_EQ(Call(Handler::kStatfs, SYS_statfs, {kPath, kBuffer}, "/etc/private").error, ENOENT);
  EXPECT_EQ(Call(Handler::kStatfs, SYS_statfs, {kPath, kBuffer}, "/etc/none").error, ENOENT);
}

// The watch is the workload's: its events arrive on its own descriptor.
TEST_F(PathQueries, AWatchIsAddedToTheWorkloadsInstance) {
  UniqueFd inotify(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  Verdict verdict = Watch(inotify.Get(), "/tmp", IN_CREATE);
  ASSERT_EQ(verdict.error, 0);
  EXPECT_GE(verdict.value, 1);
  std::ofstream(root_ + "/tmp/new") << "x";
  alignas(inotify_event) char buffer[sizeof(inotify_event) + 256];
  ssize_t n = ::read(inotify.Get(), buffer, sizeof buffer);
  ASSERT_GT(n, static_cast<ssize_t>(sizeof(inotify_event)));
  const auto* event = reinterpret_cast<const inotify_event*>(buffer);
  EXPECT_EQ(event->wd, verdict.value);
  EXPECT_TRUE(event->mask & IN_CREATE);
  EXPECT_STREQ(event->name, "new");
}

TEST_F(PathQueries, AHiddenDirectoryCannotBeWatched) {
  UniqueFd inotify(::inotify_init1(IN_CLOEXEC));
  Verdict verdict = Watch(inotify.Get(), "/etc/private", IN_CREATE);
  EXPECT_EQ(verdict.error, ENOENT);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
}

// The kernel's own refusals, in its order: a file for IN_ONLYDIR, a
// descriptor that is no inotify instance.
TEST_F(PathQueries, WatchRefusalsAreTheKernels) {
  UniqueFd inotify(::inotify_init1(IN_CLOEXEC));
  EXPECT_EQ(Watch(inotify.Get(), "/etc/motd", IN_MODIFY | IN_ONLYDIR).error, ENOTDIR);
  UniqueFd not_inotify(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(Watch(not_inotify.Get(), "/etc/motd", IN_MODIFY).error, EINVAL);
  EXPECT_EQ(Watch(inotify.Get(), "/etc/motd", 0).error, EINVAL);
}

}  // namespace
}  // namespace vigil::sentry
