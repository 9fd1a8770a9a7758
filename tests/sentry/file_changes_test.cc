// The handlers that change files without opening them — adding, removing
// and moving names; mode, owner, size and times — against a fake tracee
// whose container root is a temporary directory: what the file policy lets
// the workload change, and the ways around a path policy that rename and
// link would otherwise open.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "base/unique_fd.h"
#include "sentry/handlers/handler.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"

namespace vigil::sentry {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kFirst = FakeTracee::kBase;
constexpr std::uint64_t kSecond = FakeTracee::kBase + 4096;

class FileChanges : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vigil-names-root-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    for (const char* dir : {"/etc", "/tmp", "/data/box", "/work"})
      fs::create_directories(root_ + dir);
    Write("/etc/hostname", "container\n");
    Write("/etc/secret", "s3cret\n");
    Write("/etc/denied", "no\n");
    Write("/data/box/hidden", "h\n");
    Write("/tmp/mine", "mine\n");
    tracee_.root = root_;
    tracee_.cwd = "/work";
    Result<config::Policy> policy = config::ParsePolicy(R"({"files": {"default": "read", "rules": [
        {"path": "/etc/secret", "access": "hidden"},
        {"path": "/etc/denied", "access": "deny"},
        {"path": "/data/box/hidden", "access": "hidden"},
        {"path": "/data/**", "access": "write"},
        {"path": "/tmp/**", "access": "write"},
        {"path": "/work/**", "access": "write"}]}})");
    ASSERT_TRUE(policy) << policy.error().message;
    policy_ = *policy;
    sandbox_.policy = &policy_;
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& path, const std::string& text) {
    std::ofstream(root_ + path) << text;
  }
  bool Exists(const std::string& path) {
    struct stat st {};
    return ::lstat((root_ + path).c_str(), &st) == 0;
  }

  void Put(std::uint64_t address, const std::string& text) {
    ASSERT_TRUE(tracee_.Write(address, std::as_bytes(std::span(text.c_str(), text.size() + 1))));
  }

  // The syscall `number` with `args` (paths put at kFirst and kSecond).
  Verdict Call(Handler handler, int number, std::array<std::uint64_t, 6> args) {
    SyscallEvent event{.tid = ::gettid(), .number = number, .args = args};
    HandlerContext context{
        .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
          return Result<void>();
        }};
    return HandleAsLoop(handler, context);
  }

  Verdict Rename(const std::string& from, const std::string& to, unsigned int flags = 0) {
    Put(kFirst, from);
    Put(kSecond, to);
    const auto cwd = static_cast<std::uint64_t>(AT_FDCWD);
    return Call(Handler::kRename, SYS_renameat2, {cwd, kFirst, cwd, kSecond, flags});
  }
  Verdict Link(const std::string& from, const std::string& to) {
    Put(kFirst, from);
    Put(kSecond, to);
    return Call(Handler::kLink, SYS_link, {kFirst, kSecond});
  }
  Verdict Unlink(const std::string& path) {
    Put(kFirst, path);
    return Call(Handler::kRemove, SYS_unlink, {kFirst});
  }
  Verdict Rmdir(const std::string& path) {
    Put(kFirst, path);
    return Call(Handler::kRemove, SYS_rmdir, {kFirst});
  }
  Verdict Mkdir(const std::string& path) {
    Put(kFirst, path);
    return Call(Handler::kCreate, SYS_mkdir, {kFirst, 0755});
  }
  Verdict Mknod(const std::string& path, mode_t mode, dev_t device = 0) {
    Put(kFirst, path);
    return Call(Handler::kCreate, SYS_mknod, {kFirst, mode, device});
  }
  Verdict Symlink(const std::string& target, const std::string& path) {
    Put(kFirst, target);
    Put(kSecond, path);
    return Call(Handler::kCreate, SYS_symlink, {kFirst, kSecond});
  }

  Verdict Chmod(const std::string& path, mode_t mode) {
    Put(kFirst, path);
    return Call(Handler::kAttributes, SYS_chmod, {kFirst, mode});
  }
  Verdict Truncate(const std::string& path, off_t size) {
    Put(kFirst, path);
    return Call(Handler::kAttributes, SYS_truncate, {kFirst, static_cast<std::uint64_t>(size)});
  }
  Verdict Chown(const std::string& path) {
    Put(kFirst, path);
    return Call(Handler::kAttributes, SYS_chown, {kFirst, 0, 0});
  }
  Verdict Utimensat(const std::string& path, std::array<timespec, 2> times) {
    Put(kFirst, path);
    EXPECT_TRUE(tracee_.Write(kSecond, std::as_bytes(std::span(times))));
    const auto cwd = static_cast<std::uint64_t>(AT_FDCWD);
    return Call(Handler::kAttributes, SYS_utimensat, {cwd, kFirst, kSecond, 0});
  }
  mode_t Mode(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat((root_ + path).c_str(), &st), 0);
    return st.st_mode & 07777;
  }

  std::string root_;
  config::Policy policy_;
  Sandbox sandbox_;
  FakeTracee tracee_{8192};
};

TEST_F(FileChanges, RenamesWithinWritablePlaces) {
  Verdict verdict = Rename("/tmp/mine", "/work/moved");
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  EXPECT_FALSE(Exists("/tmp/mine"));
  EXPECT_TRUE(Exists("/work/moved"));
}

// The way around a path policy that rename would open: a hidden or
// read-only file moved to where the policy lets the workload read or write.
TEST_F(FileChanges, AHiddenOrReadOnlyFileCannotBeMovedOut) {
  Verdict hidden = Rename("/etc/secret", "/tmp/secret");
  EXPECT_EQ(hidden.error, ENOENT);
  EXPECT_EQ(hidden.decision, Decision::kDeny);
  EXPECT_EQ(Rename("/etc/denied", "/tmp/denied").error, EACCES);
  EXPECT_EQ(Rename("/etc/hostname", "/tmp/hostname").error, EACCES);
  EXPECT_TRUE(Exists("/etc/secret"));
  EXPECT_FALSE(Exists("/tmp/secret"));
  // Nor can a writable file replace a read-only one.
  EXPECT_EQ(Rename("/tmp/mine", "/etc/hostname").error, EACCES);
}

// Renaming /data/box would carry its hidden file to a path no rule hides.
TEST_F(FileChanges, ADirectoryHoldingARestrictedPathMovesOnlyByCopy) {
  EXPECT_EQ(Rename("/data/box", "/tmp/box").error, EXDEV);
  EXPECT_TRUE(Exists("/data/box/hidden"));
  fs::create_directories(root_ + "/tmp/dir/sub");
  EXPECT_EQ(Rename("/tmp/dir", "/work/dir").error, 0);
  EXPECT_TRUE(Exists("/work/dir/sub"));
}

TEST_F(FileChanges, ExchangeChecksBothTrees) {
  fs::create_directories(root_ + "/tmp/swap");
  EXPECT_EQ(Rename("/tmp/swap", "/data/box", RENAME_EXCHANGE).error, EXDEV);
  EXPECT_TRUE(Exists("/data/box/hidden"));
}

TEST_F(FileChanges, ALinkNeedsAFileTheWorkloadMayWrite) {
  EXPECT_EQ(Link("/etc/secret", "/tmp/alias").error, ENOENT);
  EXPECT_EQ(Link("/etc/hostname", "/tmp/alias").error, EACCES);
  EXPECT_FALSE(Exists("/tmp/alias"));
  EXPECT_EQ(Link("/tmp/mine", "/work/alias").error, 0);
  struct stat a {};
  struct stat b {};
  ASSERT_EQ(::stat((root_ + "/tmp/mine").c_str(), &a), 0);
  ASSERT_EQ(::stat((root_ + "/work/alias").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  EXPECT_EQ(Link("/tmp/mine", "/etc/alias").error, EACCES);
}

// A link whose source is a symlink to a hidden file: link(2) does not
// follow it, so the new name is another symlink, decided as the link's own
// path; following it would reach the hidden file, which stays hidden.
TEST_F(FileChanges, LinkingASymlinkDoesNotReachItsTarget) {
  fs::create_symlink("/etc/secret", root_ + "/tmp/pointer");
  EXPECT_EQ(Link("/tmp/pointer", "/tmp/pointer2").error, 0);
  EXPECT_TRUE(fs::is_symlink(root_ + "/tmp/pointer2"));
}

TEST_F(FileChanges, RemovesOnlyWhatTheWorkloadMayWrite) {
  EXPECT_EQ(Unlink("/etc/secret").error, ENOENT);
  EXPECT_EQ(Unlink("/etc/hostname").error, EACCES);
  EXPECT_TRUE(Exists("/etc/hostname"));
  EXPECT_EQ(Unlink("/tmp/mine").error, 0);
  EXPECT_FALSE(Exists("/tmp/mine"));
  EXPECT_EQ(Unlink("/tmp/mine").error, ENOENT);
  fs::create_directories(root_ + "/tmp/empty");
  EXPECT_EQ(Rmdir("/tmp/empty/").error, 0);
  EXPECT_EQ(Rmdir("/etc").error, EACCES);
}

TEST_F(FileChanges, CreatesInWritablePlacesOnly) {
  EXPECT_EQ(Mkdir("/tmp/new").error, 0);
  EXPECT_TRUE(fs::is_directory(root_ + "/tmp/new"));
  EXPECT_EQ(Mkdir("/etc/new").error, EACCES);
  EXPECT_EQ(Mkdir("/tmp/new").error, EEXIST);
  EXPECT_EQ(Mknod("/tmp/fifo", S_IFIFO | 0600).error, 0);
  EXPECT_TRUE(fs::is_fifo(root_ + "/tmp/fifo"));
  EXPECT_EQ(Mknod("/tmp/null", S_IFCHR | 0666, makedev(1, 3)).error, EPERM);
  EXPECT_FALSE(Exists("/tmp/null"));
  EXPECT_EQ(Symlink("/etc/secret", "/tmp/link").error, 0);
  EXPECT_EQ(fs::read_symlink(root_ + "/tmp/link"), "/etc/secret");
  EXPECT_EQ(Symlink("x", "/etc/link").error, EACCES);
}

// Under a policy that refuses no file (audit-only's), every change is
// decided, audited and left to the kernel, which makes it as the workload:
// among them the two the sentry could not make as the kernel would, a
// device node (the device cgroup decides its use) and a link to the file a
// descriptor holds (its opener may, since Linux 6.10). Under a policy that
// restricts files they stay the sentry's.
TEST_F(FileChanges, UnderAPolicyRefusingNoFileTheKernelMakesEveryChange) {
  config::Policy open_policy;
  sandbox_.policy = &open_policy;
  EXPECT_EQ(Mknod("/tmp/null", S_IFCHR | 0666, makedev(1, 3)).kind, Verdict::Kind::kContinue);
  EXPECT_FALSE(Exists("/tmp/null")) << "made by the sentry, not left to the kernel";
  EXPECT_EQ(Mknod("/nowhere/null", S_IFCHR | 0666, makedev(1, 3)).error, ENOENT);
  EXPECT_EQ(Mknod("/tmp/fifo", S_IFIFO | 0600).kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Mkdir("/etc/new").kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Symlink("x", "/etc/link").kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Unlink("/etc/hostname").kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Rename("/tmp/mine", "/etc/moved").kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Link("/tmp/mine", "/etc/hard").kind, Verdict::Kind::kContinue);
  for (const char* made : {"/tmp/fifo", "/etc/new", "/etc/link", "/etc/moved", "/etc/hard"}) {
    EXPECT_FALSE(Exists(made)) << made << ": made by the sentry, not left to the kernel";
  }
  EXPECT_TRUE(Exists("/etc/hostname"));
  EXPECT_TRUE(Exists("/tmp/mine"));

  UniqueFd mine(::open((root_ + "/tmp/mine").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(mine);
  Put(kFirst, "");
  Put(kSecond, "/tmp/linked");
  const std::array<std::uint64_t, 6> link_args = {static_cast<std::uint64_t>(mine.Get()), kFirst,
                                                  static_cast<std::uint64_t>(AT_FDCWD), kSecond,
                                                  AT_EMPTY_PATH};
  EXPECT_EQ(Call(Handler::kLink, SYS_linkat, link_args).kind, Verdict::Kind::kContinue);
  EXPECT_FALSE(Exists("/tmp/linked"));

  sandbox_.policy = &policy_;
  EXPECT_EQ(Mknod("/tmp/null", S_IFCHR | 0666, makedev(1, 3)).error, EPERM);
  tracee_.capabilities = ~(std::uint64_t{1} << CAP_DAC_READ_SEARCH);
  EXPECT_EQ(Call(Handler::kLink, SYS_linkat, link_args).error, ENOENT);
}

// A trailing slash asks for a directory: the kernel's answer for each call,
// never the bare name acted on (unlink("file/") removing the file).
TEST_F(FileChanges, ATrailingSlashOnAFileIsNotTheFile) {
  EXPECT_EQ(Unlink("/tmp/mine/").error, ENOTDIR);
  EXPECT_EQ(Rmdir("/tmp/mine/").error, ENOTDIR);
  EXPECT_EQ(Rename("/tmp/mine/", "/tmp/moved").error, ENOTDIR);
  EXPECT_EQ(Rename("/tmp/mine", "/tmp/moved/").error, ENOTDIR);
  EXPECT_EQ(Link("/tmp/mine", "/tmp/hard/").error, ENOENT);
  EXPECT_EQ(Symlink("mine", "/tmp/soft/").error, ENOENT);
  EXPECT_EQ(Mknod("/tmp/fifo/", S_IFIFO | 0600).error, ENOENT);
  EXPECT_TRUE(Exists("/tmp/mine"));
  EXPECT_FALSE(Exists("/tmp/moved"));
  EXPECT_FALSE(Exists("/tmp/hard"));
  EXPECT_FALSE(Exists("/tmp/soft"));
  // A directory may be named with one.
  EXPECT_EQ(Mkdir("/tmp/made/").error, 0);
  EXPECT_EQ(Rename("/tmp/made/", "/tmp/moved/").error, 0);
  EXPECT_EQ(Rmdir("/tmp/moved//").error, 0);
  EXPECT_FALSE(Exists("/tmp/moved"));
}

// mknod makes no directories, and refuses types it does not know, before
// it looks at the path at all.
TEST_F(FileChanges, MknodRefusesDirectoriesAndUnknownTypes) {
  EXPECT_EQ(Mknod("/tmp/dir", S_IFDIR | 0755).error, EPERM);
  EXPECT_FALSE(Exists("/tmp/dir"));
  EXPECT_EQ(Mknod("/tmp/odd", 0170000 | 0644).error, EINVAL);
  EXPECT_EQ(Mknod("/nowhere/odd", S_IFDIR | 0755).error, EPERM);
  EXPECT_EQ(Mknod("/tmp/plain", 0640).error, 0);
  EXPECT_TRUE(fs::is_regular_file(root_ + "/tmp/plain"));
}

// Relative names resolve from the working directory, and the directory part
// of a path is resolved in the container's root: a symlink pointing out
// lands inside.
TEST_F(FileChanges, RelativeAndEscapingPathsStayInTheRoot) {
  EXPECT_EQ(Mkdir("made").error, 0);
  EXPECT_TRUE(fs::is_directory(root_ + "/work/made"));
  fs::create_symlink("../../../../..", root_ + "/work/up");
  EXPECT_EQ(Mkdir("/work/up/tmp/escaped").error, 0);
  EXPECT_TRUE(fs::is_directory(root_ + "/tmp/escaped"));
}

TEST_F(FileChanges, BadPointersFault) {
  EXPECT_EQ(Call(Handler::kRemove, SYS_unlink, {0x10}).error, EFAULT);
  Put(kFirst, "/tmp/mine");
  EXPECT_EQ(Call(Handler::kRename, SYS_rename, {kFirst, 0x10}).error, EFAULT);
  EXPECT_TRUE(Exists("/tmp/mine"));
}

TEST_F(FileChanges, AStaleNotificationIsNotActedOn) {
  tracee_.valid = false;
  EXPECT_EQ(Unlink("/tmp/mine").kind, Verdict::Kind::kStale);
  EXPECT_TRUE(Exists("/tmp/mine"));
}

TEST_F(FileChanges, ModeOwnerSizeAndTimesChangeOnlyWhereWritable) {
  EXPECT_EQ(Chmod("/etc/hostname", 0666).error, EACCES);
  EXPECT_EQ(Mode("/etc/hostname"), 0644u);
  EXPECT_EQ(Chmod("/etc/secret", 0666).error, ENOENT);
  EXPECT_EQ(Chown("/etc/denied").error, EACCES);
  EXPECT_EQ(Truncate("/etc/hostname", 0).error, EACCES);
  EXPECT_EQ(fs::file_size(root_ + "/etc/hostname"), 10u);

  EXPECT_EQ(Chmod("/tmp/mine", 0600).error, 0);
  EXPECT_EQ(Mode("/tmp/mine"), 0600u);
  EXPECT_EQ(Chown("/tmp/mine").error, 0);
  EXPECT_EQ(Truncate("/tmp/mine", 2).error, 0);
  EXPECT_EQ(fs::file_size(root_ + "/tmp/mine"), 2u);
  EXPECT_EQ(Truncate("/tmp/mine", -1).error, EINVAL);
  EXPECT_EQ(Utimensat("/tmp/mine", {timespec{1000, 0}, timespec{2000, 0}}).error, 0);
  struct stat st {};
  ASSERT_EQ(::stat((root_ + "/tmp/mine").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 2000);
  EXPECT_EQ(Utimensat("/etc/hostname", {timespec{1000, 0}, timespec{2000, 0}}).error, EACCES);
}

TEST_F(FileChanges, TruncatingAFifoOrADirectoryOpensNothing) {
  ASSERT_EQ(::mkfifo((root_ + "/tmp/fifo").c_str(), 0600), 0);
  EXPECT_EQ(Truncate("/tmp/fifo", 0).error, EINVAL);
  EXPECT_EQ(Truncate("/tmp", 0).error, EISDIR);
}

// A descriptor opened for reading does not make a read-only file's mode the
// workload's to change; a pipe has no path for the policy to govern.
TEST_F(FileChanges, DescriptorFormsAreDecidedOnTheDescriptorsFile) {
  UniqueFd readonly(::open((root_ + "/etc/hostname").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(readonly);
  EXPECT_EQ(
      Call(Handler::kAttributes, SYS_fchmod, {static_cast<std::uint64_t>(readonly.Get()), 0666})
          .error,
      EACCES);
  EXPECT_EQ(Mode("/etc/hostname"), 0644u);
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd in(pipe_fds[0]), out(pipe_fds[1]);
  EXPECT_EQ(
      Call(Handler::kAttributes, SYS_fchmod, {static_cast<std::uint64_t>(in.Get()), 0600}).error,
      0);
}

// An empty path with AT_EMPTY_PATH names the descriptor, and for AT_FDCWD
// the working directory, as the kernel has it: decided like any other file.
TEST_F(FileChanges, AnEmptyPathNamesTheDescriptorOrTheWorkingDirectory) {
  Put(kFirst, "");
  const auto cwd = static_cast<std::uint64_t>(AT_FDCWD);
  EXPECT_EQ(
      Call(Handler::kAttributes, 452 /* fchmodat2 */, {cwd, kFirst, 0700, AT_EMPTY_PATH}).error, 0);
  EXPECT_EQ(Mode("/work"), 0700u);
  EXPECT_EQ(Call(Handler::kAttributes, SYS_fchownat,
                 {cwd, kFirst, static_cast<std::uint64_t>(::getuid()),
                  static_cast<std::uint64_t>(::getgid()), AT_EMPTY_PATH})
                .error,
            0);
  std::array<timespec, 2> times = {timespec{1000, 0}, timespec{2000, 0}};
  ASSERT_TRUE(tracee_.Write(kSecond, std::as_bytes(std::span(times))));
  EXPECT_EQ(Call(Handler::kAttributes, SYS_utimensat, {cwd, kFirst, kSecond, AT_EMPTY_PATH}).error,
            0);
  struct stat st {};
  ASSERT_EQ(::stat((root_ + "/work").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 2000);
  // Without AT_EMPTY_PATH, an empty path is no file.
  EXPECT_EQ(Call(Handler::kAttributes, SYS_fchownat, {cwd, kFirst, 0, 0, 0}).error, ENOENT);
  // A read-only working directory is read-only this way too.
  tracee_.cwd = "/etc";
  EXPECT_EQ(Call(Handler::kAttributes, SYS_utimensat, {cwd, kFirst, kSecond, AT_EMPTY_PATH}).error,
            EACCES);
  // A real descriptor with "" is that descriptor's file.
  UniqueFd mine(::open((root_ + "/tmp/mine").c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(
      Call(Handler::kAttributes, SYS_fchownat,
           {static_cast<std::uint64_t>(mine.Get()), kFirst, static_cast<std::uint64_t>(::getuid()),
            static_cast<std::uint64_t>(::getgid()), AT_EMPTY_PATH})
          .error,
      0);
}

// utimensat with no path: futimens on a descriptor (no flags), EFAULT for
// AT_FDCWD; and "leave both times" is done before anything is looked at.
TEST_F(FileChanges, UtimensatWithoutAPath) {
  UniqueFd mine(::open((root_ + "/tmp/mine").c_str(), O_RDONLY | O_CLOEXEC));
  const auto fd = static_cast<std::uint64_t>(mine.Get());
  const auto cwd = static_cast<std::uint64_t>(AT_FDCWD);
  EXPECT_EQ(Call(Handler::kAttributes, SYS_utimensat, {fd, 0, 0, 0}).error, 0);
  EXPECT_EQ(Call(Handler::kAttributes, SYS_utimensat, {fd, 0, 0, AT_SYMLINK_NOFOLLOW}).error,
            EINVAL);
  EXPECT_EQ(Call(Handler::kAttributes, SYS_utimensat, {cwd, 0, 0, 0}).error, EFAULT);
  std::array<timespec, 2> omit = {timespec{0, UTIME_OMIT}, timespec{0, UTIME_OMIT}};
  ASSERT_TRUE(tracee_.Write(kSecond, std::as_bytes(std::span(omit))));
  Put(kFirst, "/missing");
  EXPECT_EQ(Call(Handler::kAttributes, SYS_utimensat, {cwd, kFirst, kSecond, 0}).error, 0);
}

constexpr std::uint64_t kName = FakeTracee::kBase + 6144;
constexpr std::uint64_t kValue = FakeTracee::kBase + 7168;

TEST_F(FileChanges, ExtendedAttributesReadWhereVisibleAndChangeWhereWritable) {
  Put(kName, "user.vigil");
  Put(kValue, "v1");
  auto call = [&](int number, const std::string& path, std::array<std::uint64_t, 6> args) {
    Put(kFirst, path);
    return Call(Handler::kXattr, number, args);
  };
  Verdict set = call(SYS_setxattr, "/tmp/mine", {kFirst, kName, kValue, 2, 0});
  if (set.error == EOPNOTSUPP) GTEST_SKIP() << "no user xattrs on " << root_;
  ASSERT_EQ(set.error, 0);
  Verdict size = call(SYS_getxattr, "/tmp/mine", {kFirst, kName, kValue, 0});
  EXPECT_EQ(size.value, 2);
  Put(kValue, "xxxx");
  Verdict got = call(SYS_getxattr, "/tmp/mine", {kFirst, kName, kValue, 64});
  ASSERT_EQ(got.value, 2);
  char value[3] = {};
  ASSERT_TRUE(tracee_.Read(kValue, std::as_writable_bytes(std::span(value, 2))));
  EXPECT_STREQ(value, "v1");
  Verdict listed = call(SYS_listxattr, "/tmp/mine", {kFirst, kValue, 256});
  EXPECT_GE(listed.value, 11);

  EXPECT_EQ(call(SYS_setxattr, "/etc/hostname", {kFirst, kName, kValue, 2, 0}).error, EACCES);
  EXPECT_EQ(call(SYS_removexattr, "/etc/hostname", {kFirst, kName}).error, EACCES);
  EXPECT_EQ(call(SYS_getxattr, "/etc/hostname", {kFirst, kName, kValue, 64}).error, ENODATA);
  EXPECT_EQ(call(SYS_getxattr, "/etc/secret", {kFirst, kName, kValue, 64}).error, ENOENT);
  EXPECT_EQ(call(SYS_removexattr, "/tmp/mine", {kFirst, kName}).error, 0);
}

}  // namespace
}  // namespace vigil::sentry
