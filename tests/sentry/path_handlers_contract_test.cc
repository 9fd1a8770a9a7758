// What every path-taking file handler owes the workload, whatever the
// syscall: EFAULT for a path it cannot read, ENAMETOOLONG past PATH_MAX,
// nothing done once the notification is stale, and ENOENT for a hidden file
// in place of any other answer. One table, every handler.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
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
constexpr std::uint64_t kOther = FakeTracee::kBase + 8192;  // a second path, a buffer
constexpr std::uint64_t kUnmapped = 0x10;
constexpr auto kCwd = static_cast<std::uint64_t>(AT_FDCWD);
// An inotify instance of this process, the "workload's", for the watches.
const auto kInotify = static_cast<std::uint64_t>(::inotify_init1(IN_CLOEXEC));

// One syscall of one handler, with the argument that holds the path.
struct Case {
  const char* name;
  Handler handler;
  int number;
  std::array<std::uint64_t, 6> args;  // kPath marks the path argument
};

const Case kCases[] = {
    {"open", Handler::kOpen, SYS_openat, {kCwd, kPath, O_RDONLY}},
    {"creat", Handler::kOpen, SYS_creat, {kPath, 0644}},
    {"stat", Handler::kStat, SYS_newfstatat, {kCwd, kPath, kOther, 0}},
    {"statx", Handler::kStat, SYS_statx, {kCwd, kPath, 0, STATX_BASIC_STATS, kOther}},
    {"access", Handler::kAccess, SYS_faccessat, {kCwd, kPath, R_OK}},
    {"readlink", Handler::kReadlink, SYS_readlinkat, {kCwd, kPath, kOther, 64}},
    {"mkdir", Handler::kCreate, SYS_mkdirat, {kCwd, kPath, 0755}},
    {"mknod", Handler::kCreate, SYS_mknodat, {kCwd, kPath, S_IFIFO | 0600, 0}},
    {"unlink", Handler::kRemove, SYS_unlinkat, {kCwd, kPath, 0}},
    {"rename-from", Handler::kRename, SYS_renameat2, {kCwd, kPath, kCwd, kOther, 0}},
    {"link-from", Handler::kLink, SYS_linkat, {kCwd, kPath, kCwd, kOther, 0}},
    {"chmod", Handler::kAttributes, SYS_fchmodat, {kCwd, kPath, 0600}},
    {"chown", Handler::kAttributes, SYS_fchownat, {kCwd, kPath, 0, 0, 0}},
    {"truncate", Handler::kAttributes, SYS_truncate, {kPath, 0}},
    {"utimensat", Handler::kAttributes, SYS_utimensat, {kCwd, kPath, 0, 0}},
    {"getxattr", Handler::kXattr, SYS_getxattr, {kPath, kOther, kOther, 0}},
    {"setxattr", Handler::kXattr, SYS_setxattr, {kPath, kOther, kOther, 1, 0}},
    {"statfs", Handler::kStatfs, SYS_statfs, {kPath, kOther}},
    {"inotify_add_watch",
     Handler::kInotifyWatch,
     SYS_inotify_add_watch,
     {kInotify, kPath, IN_MODIFY}},
};

class PathHandlers : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vigil-contract-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    fs::create_directories(root_ + "/etc");
    fs::create_directories(root_ + "/tmp");
    std::ofstream(root_ + "/etc/secret") << "s3cret\n";
    std::ofstream(root_ + "/tmp/file") << "data\n";
    tracee_.root = root_;
    Result<config::Policy> policy = config::ParsePolicy(R"({"files": {"rules": [
        {"path": "/etc/secret", "access": "hidden"}]}})");
    ASSERT_TRUE(policy);
    policy_ = *policy;
    sandbox_.policy = &policy_;
    // The second argument, where a case has one: a path or an xattr name.
    Put(kOther, "user.x");
  }
  void TearDown() override { fs::remove_all(root_); }

  void Put(std::uint64_t address, const std::string& text) {
    ASSERT_TRUE(tracee_.Write(address, std::as_bytes(std::span(text.c_str(), text.size() + 1))));
  }

  // The case with its path argument set to `path_pointer`.
  Verdict Call(std::uint64_t path_pointer) {
    const Case& c = GetParam();
    SyscallEvent event{.tid = ::gettid(), .number = c.number, .args = c.args};
    for (std::uint64_t& arg : event.args) {
      if (arg == kPath) arg = path_pointer;
    }
    HandlerContext context{
        .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
          return Result<void>();
        }};
    return HandleAsLoop(c.handler, context);
  }

  std::string Snapshot() {
    std::string out;
    for (const auto& entry : fs::recursive_directory_iterator(root_)) {
      struct stat st {};
      ::lstat(entry.path().c_str(), &st);
      out += entry.path().string() + " " + std::to_string(st.st_mode) + " " +
             std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_nsec) + "\n";
    }
    return out;
  }

  std::string root_;
  config::Policy policy_;
  Sandbox sandbox_;
  FakeTracee tracee_{16384};
};

TEST_P(PathHandlers, AnUnreadablePathFaults) { EXPECT_EQ(Call(kUnmapped).error, EFAULT); }

TEST_P(PathHandlers, APathPastPathMaxIsTooLong) {
  Put(kPath, std::string(PATH_MAX + 10, 'a'));
  EXPECT_EQ(Call(kPath).error, ENAMETOOLONG);
}

TEST_P(PathHandlers, AHiddenFileDoesNotExist) {
  Put(kPath, "/etc/secret");
  Verdict verdict = Call(kPath);
  EXPECT_EQ(verdict.error, ENOENT);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
  EXPECT_TRUE(fs::exists(root_ + "/etc/secret"));
}

// Not answered at all (the thread is gone or was interrupted), and for the
// calls that change files, nothing changed.
TEST_P(PathHandlers, AStaleNotificationChangesNothing) {
  Put(kPath, "/tmp/file");
  const std::string before = Snapshot();
  tracee_.valid = false;
  Verdict verdict = Call(kPath);
  EXPECT_EQ(verdict.kind, Verdict::Kind::kStale) << verdict.error;
  EXPECT_EQ(Snapshot(), before);
}

INSTANTIATE_TEST_SUITE_P(EveryHandler, PathHandlers, ::testing::ValuesIn(kCases),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace vigil::sentry
