// The open handler against a fake tracee whose container root is a
// temporary directory: decisions on the resolved file, the file actually
// opened, creation in writable directories, and the caller's own names.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "base/strings.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/paths.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"
#include "tests/sentry/open_fixture.h"

namespace vigil::sentry {
namespace {

namespace fs = std::filesystem;

class OpenHandler : public OpenFixture {};

TEST_F(OpenHandler, ReadableFileIsOpenedFromTheContainersRoot) {
  Verdict verdict = Open("/etc/hostname", O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(ReadAll(verdict), "container\n");
  EXPECT_TRUE(verdict.cloexec);
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  EXPECT_EQ(Resolved(), "/etc/hostname");
}

TEST_F(OpenHandler, HiddenFileDoesNotExist) {
  Verdict verdict = Open("/etc/secret", O_RDONLY);
  EXPECT_EQ(verdict.error, ENOENT);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
}

// The decision is on the file the path resolves to, not on the string.
TEST_F(OpenHandler, SymlinkToAHiddenFileIsHiddenToo) {
  fs::create_symlink("/etc/secret", root_ + "/tmp/innocent");
  EXPECT_EQ(Open("/tmp/innocent", O_RDONLY).error, ENOENT);
  EXPECT_EQ(Resolved(), "/etc/secret");
}

TEST_F(OpenHandler, DeniedFileIsPermissionDenied) {
  Write("/etc/denied", "x");
  EXPECT_EQ(Open("/etc/denied", O_RDONLY).error, EACCES);
}

TEST_F(OpenHandler, ReadOnlyFilesCannotBeWrittenOrTruncated) {
  EXPECT_EQ(Open("/etc/hostname", O_WRONLY).error, EACCES);
  EXPECT_EQ(Open("/etc/hostname", O_RDONLY | O_TRUNC).error, EACCES);
  EXPECT_EQ(Open("/etc/new", O_WRONLY | O_CREAT).error, EACCES);
  EXPECT_FALSE(fs::exists(root_ + "/etc/new"));
}

TEST_F(OpenHandler, NewFileInAWritableDirectoryIsCreatedWithTheUmask) {
  Verdict verdict = Open("/tmp/out", O_WRONLY | O_CREAT | O_EXCL, 0666);
  ASSERT_EQ(verdict.kind, Verdict::Kind::kInstallFd) << verdict.error;
  ASSERT_EQ(::write(verdict.fd->Get(), "ok", 2), 2);
  struct stat st {};
  ASSERT_EQ(::stat((root_ + "/tmp/out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // 0666 & ~022
  EXPECT_EQ(Open("/tmp/out", O_WRONLY | O_CREAT | O_EXCL).error, EEXIST);
}

// ".." climbs no higher than the container's root, from the working
// directory as from anywhere.
TEST_F(OpenHandler, DotDotStopsAtTheRoot) {
  Verdict verdict = Open("../../../../../../etc/hostname", O_RDONLY);
  EXPECT_EQ(ReadAll(verdict), "container\n");
  EXPECT_EQ(Resolved(), "/etc/hostname");
}

TEST_F(OpenHandler, RelativePathsStartAtTheWorkingDirectory) {
  Write("/work/sub/notes", "here\n");
  EXPECT_EQ(ReadAll(Open("notes", O_RDONLY)), "here\n");
  EXPECT_EQ(Resolved(), "/work/sub/notes");
}

// /dev/fd/N (like /proc/self/fd/N) is the caller's own descriptor: a new
// open of the same file, decided like any other.
TEST_F(OpenHandler, OwnDescriptorIsReopened) {
  int fd = ::open((root_ + "/etc/hostname").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  UniqueFd held(fd);
  EXPECT_EQ(ReadAll(Open(StrCat("/dev/fd/", fd), O_RDONLY)), "container\n");
  int secret = ::open((root_ + "/etc/secret").c_str(), O_RDONLY | O_CLOEXEC);
  UniqueFd held_secret(secret);
  EXPECT_EQ(Open(StrCat("/proc/self/fd/", secret), O_RDONLY).error, ENOENT);
}

// Shells hand process substitutions over as /dev/fd/N of a pipe: a file
// with no path, which the policy does not govern.
TEST_F(OpenHandler, OwnPipeReopensByItsDescriptorName) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  UniqueFd in(fds[0]), out(fds[1]);
  ASSERT_EQ(::write(out.Get(), "piped\n", 6), 6);
  Verdict verdict = Open(StrCat("/dev/fd/", in.Get()), O_RDONLY);
  ASSERT_EQ(verdict.kind, Verdict::Kind::kInstallFd) << verdict.error;
  char buf[16] = {};
  EXPECT_EQ(::read(verdict.fd->Get(), buf, sizeof buf), 6);
  EXPECT_STREQ(buf, "piped\n");
}

// A hidden file is not listed either, whatever the buffer's size: a batch
// that was all hidden is followed by the next, and 0 still means the end.
TEST_F(OpenHandler, ListingsLeaveHiddenFilesOut) {
  for (std::size_t size : {std::size_t{4096}, std::size_t{40}}) {
    UniqueFd dir(::open((root_ + "/etc").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(dir);
    std::vector<std::string> names;
    for (;;) {
      SyscallEvent event{.tid = ::gettid(),
                         .number = SYS_getdents64,
                         .args = {static_cast<std::uint64_t>(dir.Get()), kPath, size}};
      HandlerContext context{
          .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
            return Result<void>();
          }};
      Verdict verdict = HandleAsLoop(Handler::kGetdents, context);
      ASSERT_EQ(verdict.error, 0);
      if (verdict.value == 0) break;
      std::vector<char> batch(static_cast<std::size_t>(verdict.value));
      ASSERT_TRUE(tracee_.Read(kPath, std::as_writable_bytes(std::span(batch))));
      for (std::size_t at = 0; at < batch.size();) {
        std::uint16_t reclen = 0;
        std::memcpy(&reclen, batch.data() + at + 16, sizeof reclen);
        names.emplace_back(batch.data() + at + 19);
        at += reclen;
      }
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{".", "..", "hostname"})) << "buffer " << size;
  }
}

TEST_F(OpenHandler, DevicesOnlyIfTheContainerWasGivenThem) {
  ASSERT_EQ(::mknod((root_ + "/tmp/null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  EXPECT_EQ(Open("/tmp/null", O_RDONLY).error, EPERM);
  sandbox_.device_allowed = [](mode_t type, dev_t device, std::string_view access) {
    return type == S_IFCHR && device == makedev(1, 3) && access == "r";
  };
  EXPECT_EQ(Open("/tmp/null", O_RDONLY).kind, Verdict::Kind::kInstallFd);
  // Only for the access the device cgroup grants.
  EXPECT_EQ(Open("/tmp/null", O_WRONLY).error, EPERM);
  EXPECT_EQ(Open("/tmp/null", O_RDWR).error, EPERM);
}

// The file is reopened as the workload: its permissions, not the sentry's.
TEST_F(OpenHandler, PermissionsAreTheWorkloads) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  Write("/etc/rootonly", "r\n");
  ASSERT_EQ(::chmod((root_ + "/etc/rootonly").c_str(), 0600), 0);
  ASSERT_EQ(::chmod(root_.c_str(), 0755), 0);
  tracee_.fsuid = 1000;
  tracee_.fsgid = 1000;
  tracee_.capabilities = 0;
  EXPECT_EQ(Open("/etc/rootonly", O_RDONLY).error, EACCES);
  EXPECT_EQ(ReadAll(Open("/etc/hostname", O_RDONLY)), "container\n");
  // A readable file in a directory the workload cannot search stays out of
  // reach: the path is resolved as the workload too.
  fs::create_directories(root_ + "/root");
  Write("/root/id.pub", "key\n");
  ASSERT_EQ(::chmod((root_ + "/root").c_str(), 0700), 0);
  EXPECT_EQ(Open("/root/id.pub", O_RDONLY).error, EACCES);
  EXPECT_EQ(Open("/root/new", O_WRONLY | O_CREAT).error, EACCES);
  // And the sentry is itself again afterwards.
  EXPECT_EQ(::setfsuid(static_cast<uid_t>(-1)), 0);
}

TEST_F(OpenHandler, BadPathsFailAsTheKernelWould) {
  SyscallEvent event{.tid = ::gettid(), .number = SYS_open, .args = {0x1, O_RDONLY, 0}};
  HandlerContext context{.event = event, .tracee = tracee_, .sandbox = sandbox_};
  EXPECT_EQ(HandleAsLoop(Handler::kOpen, context).error, EFAULT);
  EXPECT_EQ(Open(std::string(5000, 'a'), O_RDONLY).error, ENAMETOOLONG);
  EXPECT_EQ(Open("", O_RDONLY).error, ENOENT);
  EXPECT_EQ(Open("/etc/hostname/x", O_RDONLY).error, ENOTDIR);
}

// O_CREAT never opens a directory, and O_TMPFILE's flags are checked
// before the path, as build_open_flags does.
TEST_F(OpenHandler, CreateFlagsAreCheckedAsTheKernelDoes) {
  EXPECT_EQ(Open("/tmp", O_RDONLY | O_CREAT).error, EISDIR);
  EXPECT_EQ(Open("/tmp", O_TMPFILE | O_RDONLY).error, EINVAL);
  EXPECT_EQ(Open("/tmp", O_TMPFILE | O_CREAT | O_RDWR).error, EINVAL);
  EXPECT_EQ(Open("/nowhere", O_TMPFILE | O_RDONLY).error, EINVAL);
  // O_DIRECTORY alone is no O_TMPFILE (glibc's constant includes it).
  EXPECT_EQ(Open("/tmp", O_RDONLY | O_DIRECTORY).kind, Verdict::Kind::kInstallFd);
}

// The unnamed file gets the mode asked for (less the umask), not 0.
TEST_F(OpenHandler, TmpfileGetsItsMode) {
  Verdict verdict = Open("/tmp", O_TMPFILE | O_RDWR, 0640);
  ASSERT_EQ(verdict.kind, Verdict::Kind::kInstallFd) << verdict.error;
  struct stat st {};
  ASSERT_EQ(::fstat(verdict.fd->Get(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640 & ~022);
}

// O_CREAT (without O_EXCL or O_NOFOLLOW) through a dangling symlink creates
// what it points to, decided on that path; the link cannot lead out.
TEST_F(OpenHandler, CreateThroughADanglingSymlinkMakesItsTarget) {
  fs::create_symlink("made", root_ + "/tmp/dangling");
  Verdict verdict = Open("/tmp/dangling", O_WRONLY | O_CREAT, 0600);
  EXPECT_EQ(verdict.kind, Verdict::Kind::kInstallFd) << verdict.error;
  EXPECT_TRUE(fs::is_regular_file(root_ + "/tmp/made"));
  EXPECT_EQ(Resolved(), "/tmp/made");
  fs::create_symlink("/etc/new", root_ + "/tmp/to-etc");
  EXPECT_EQ(Open("/tmp/to-etc", O_WRONLY | O_CREAT).error, EACCES);  // /etc is read-only
  fs::create_symlink("../../../tmp/escaped", root_ + "/tmp/up");
  EXPECT_EQ(Open("/tmp/up", O_WRONLY | O_CREAT).kind, Verdict::Kind::kInstallFd);
  EXPECT_TRUE(fs::exists(root_ + "/tmp/escaped"));
  fs::create_symlink("gone", root_ + "/tmp/excl");
  EXPECT_EQ(Open("/tmp/excl", O_WRONLY | O_CREAT | O_EXCL).error, EEXIST);
  EXPECT_EQ(Open("/tmp/excl", O_WRONLY | O_CREAT | O_NOFOLLOW).error, ELOOP);
  EXPECT_FALSE(fs::exists(root_ + "/tmp/gone"));
  fs::create_symlink("loop-b", root_ + "/tmp/loop-a");
  fs::create_symlink("loop-a", root_ + "/tmp/loop-b");
  EXPECT_EQ(Open("/tmp/loop-a", O_WRONLY | O_CREAT).error, ELOOP);
}

TEST_F(OpenHandler, StaleNotificationOpensNothing) {
  tracee_.valid = false;
  EXPECT_EQ(Open("/tmp/never", O_WRONLY | O_CREAT).kind, Verdict::Kind::kStale);
  EXPECT_FALSE(fs::exists(root_ + "/tmp/never"));
}

constexpr std::uint64_t kBuffer = FakeTracee::kBase + 4096;

Verdict StatCall(FakeTracee& tracee, const Sandbox& sandbox, int number,
                 std::array<std::uint64_t, 6> args) {
  SyscallEvent event{.tid = ::gettid(), .number = number, .args = args};
  HandlerContext context{.event = event, .tracee = tracee, .sandbox = sandbox};
  return HandleAsLoop(FindSyscall(number)->handler, context);
}

TEST_F(OpenHandler, StatSeesWhatOpenSees) {
  const std::string hidden = "/etc/secret";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(hidden.c_str(), hidden.size() + 1))));
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_newfstatat,
                     {static_cast<std::uint64_t>(AT_FDCWD), kPath, kBuffer, 0})
                .error,
            ENOENT);
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_stat, {kPath, kBuffer}).error, ENOENT);

  fs::create_symlink("/etc/secret", root_ + "/tmp/link");
  const std::string link = "/tmp/link";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(link.c_str(), link.size() + 1))));
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_stat, {kPath, kBuffer}).error, ENOENT);
  // The link itself is not hidden.
  Verdict lstat = StatCall(tracee_, sandbox_, SYS_lstat, {kPath, kBuffer});
  EXPECT_EQ(lstat.error, 0);
  EXPECT_TRUE(S_ISLNK(tracee_.ObjectAt<struct stat>(kBuffer).st_mode));

  const std::string visible = "/etc/hostname";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(visible.c_str(), visible.size() + 1))));
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_statx,
                     {static_cast<std::uint64_t>(AT_FDCWD), kPath, 0, STATX_SIZE, kBuffer})
                .error,
            0);
  EXPECT_EQ(tracee_.ObjectAt<struct statx>(kBuffer).stx_size, 10u);  // "container\n"
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_stat, {kPath, 0x1}).error, EFAULT);
}

// A hidden path the kernel has no file for (a mount kept it out) still
// names what the policy refuses: the workload gets the kernel's ENOENT, the
// audit a refusal of the path, however the workload spelled it. Other
// missing paths are the kernel's answer, allowed.
TEST_F(OpenHandler, AHiddenPathThatIsNotThereIsARefusalToo) {
  fs::remove(root_ + "/etc/secret");
  for (const std::string path :
       {"/etc/secret", "../../etc/secret", "/etc//./secret", "/work/../etc/secret"}) {
    Verdict verdict = Open(path, O_RDONLY);
    EXPECT_EQ(verdict.error, ENOENT) << path;
    EXPECT_EQ(verdict.decision, Decision::kDeny) << path;
    EXPECT_EQ(Resolved(), "/etc/secret") << path;
  }
  Verdict missing = Open("/etc/none", O_RDONLY);
  EXPECT_EQ(missing.error, ENOENT);
  EXPECT_EQ(missing.decision, Decision::kAllow);
  const std::string hidden = "/etc/secret";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(hidden.c_str(), hidden.size() + 1))));
  Verdict stat = StatCall(tracee_, sandbox_, SYS_stat, {kPath, kBuffer});
  EXPECT_EQ(stat.error, ENOENT);
  EXPECT_EQ(stat.decision, Decision::kDeny);
  Verdict access = StatCall(tracee_, sandbox_, SYS_access, {kPath, F_OK});
  EXPECT_EQ(access.error, ENOENT);
  EXPECT_EQ(access.decision, Decision::kDeny);
}

// fstat is newfstatat(fd, "", AT_EMPTY_PATH): the workload's own file.
TEST_F(OpenHandler, FstatOfAHeldDescriptor) {
  int fd = ::open((root_ + "/etc/hostname").c_str(), O_RDONLY | O_CLOEXEC);
  UniqueFd held(fd);
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span("", 1))));
  Verdict verdict = StatCall(tracee_, sandbox_, SYS_newfstatat,
                             {static_cast<std::uint64_t>(fd), kPath, kBuffer, AT_EMPTY_PATH});
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(tracee_.ObjectAt<struct stat>(kBuffer).st_size, 10);
  // Without AT_EMPTY_PATH an empty path does not exist.
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_newfstatat,
                     {static_cast<std::uint64_t>(fd), kPath, kBuffer, 0})
                .error,
            ENOENT);
}

TEST_F(OpenHandler, AccessFollowsThePolicy) {
  auto access = [&](const std::string& path, int mode) {
    EXPECT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(path.c_str(), path.size() + 1))));
    return StatCall(tracee_, sandbox_, SYS_access, {kPath, static_cast<std::uint64_t>(mode)}).error;
  };
  sandbox_.policy = &policy_;
  EXPECT_EQ(access("/etc/hostname", R_OK), 0);
  EXPECT_EQ(access("/etc/hostname", W_OK), EACCES);  // read-only by the policy
  EXPECT_EQ(access("/etc/secret", F_OK), ENOENT);
  EXPECT_EQ(access("/tmp", W_OK), 0);
  if (::geteuid() == 0) {
    Write("/etc/rootonly", "r");
    ::chmod((root_ + "/etc/rootonly").c_str(), 0600);
    ::chmod(root_.c_str(), 0755);
    tracee_.fsuid = 1000;  // effective only: access checks the real uid (0)
    EXPECT_EQ(access("/etc/rootonly", R_OK), 0);
  }
}

// Unknown flags are refused before the path is looked at.
TEST_F(OpenHandler, StatAndAccessRefuseUnknownFlags) {
  const std::string path = "/etc/hostname";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(path.c_str(), path.size() + 1))));
  const auto cwd = static_cast<std::uint64_t>(AT_FDCWD);
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_newfstatat, {cwd, kPath, kBuffer, 0x1}).error, EINVAL);
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_statx, {cwd, kPath, 0x1, STATX_SIZE, kBuffer}).error,
            EINVAL);
  EXPECT_EQ(
      StatCall(tracee_, sandbox_, SYS_statx, {cwd, kPath, AT_STATX_SYNC_TYPE, STATX_SIZE, kBuffer})
          .error,
      EINVAL);
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_statx, {cwd, kPath, 0, STATX__RESERVED, kBuffer}).error,
            EINVAL);
  EXPECT_EQ(
      StatCall(tracee_, sandbox_, SYS_newfstatat, {cwd, kPath, kBuffer, AT_SYMLINK_NOFOLLOW}).error,
      0);
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_faccessat2, {cwd, kPath, R_OK, 0x1}).error, EINVAL);
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_access, {kPath, 0x10}).error, EINVAL);
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_faccessat2, {cwd, kPath, R_OK, AT_EACCESS}).error, 0);
}

// faccessat2(fd, "", mode, AT_EMPTY_PATH) checks the file the descriptor
// holds, under the policy like any other.
TEST_F(OpenHandler, AccessOfAHeldDescriptor) {
  UniqueFd held(::open((root_ + "/etc/hostname").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span("", 1))));
  const auto fd = static_cast<std::uint64_t>(held.Get());
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_faccessat2, {fd, kPath, R_OK, AT_EMPTY_PATH}).error, 0);
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_faccessat2, {fd, kPath, W_OK, AT_EMPTY_PATH}).error,
            EACCES);  // read-only by the policy
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_faccessat2, {fd, kPath, R_OK, 0}).error, ENOENT);
}

// /proc/self names its reader, and the sentry has no pid in the container:
// the text is the caller's ids there, as the kernel writes it for the caller.
TEST_F(OpenHandler, ReadlinkOfProcSelfIsTheCallersPid) {
  tracee_.ns_tgid = 7;
  tracee_.ns_tid = 9;
  fs::create_directories(root_ + "/proc/7/task/9");
  // As procfs has them: what the sentry reads itself is another reader's.
  fs::create_symlink("4242", root_ + "/proc/self");
  fs::create_symlink("4242/task/4242", root_ + "/proc/thread-self");
  auto readlink = [&](const std::string& path) {
    EXPECT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(path.c_str(), path.size() + 1))));
    Verdict verdict = StatCall(tracee_, sandbox_, SYS_readlink, {kPath, kBuffer, 64});
    if (verdict.error != 0) return StrCat("-1 ", verdict.error);
    return std::string(tracee_.ObjectAt<std::array<char, 64>>(kBuffer).data(),
                       static_cast<std::size_t>(verdict.value));
  };
  EXPECT_EQ(readlink("/proc/self"), "7");
  EXPECT_EQ(readlink("//proc//self"), "7");
  EXPECT_EQ(readlink("/proc/thread-self"), "7/task/9");
  EXPECT_EQ(readlink("/proc/self/"), StrCat("-1 ", EINVAL));  // the directory
  EXPECT_EQ(readlink("/proc/7"), StrCat("-1 ", EINVAL));
}

// Not following it, /proc/self is the link; following it, the directory.
TEST_F(OpenHandler, LstatOfProcSelfIsTheLink) {
  tracee_.ns_tgid = 7;
  fs::create_directories(root_ + "/proc/7");
  fs::create_symlink("7", root_ + "/proc/self");
  const std::string path = "/proc/self";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(path.c_str(), path.size() + 1))));
  ASSERT_EQ(StatCall(tracee_, sandbox_, SYS_lstat, {kPath, kBuffer}).error, 0);
  EXPECT_TRUE(S_ISLNK(tracee_.ObjectAt<struct stat>(kBuffer).st_mode));
  ASSERT_EQ(StatCall(tracee_, sandbox_, SYS_stat, {kPath, kBuffer}).error, 0);
  EXPECT_TRUE(S_ISDIR(tracee_.ObjectAt<struct stat>(kBuffer).st_mode));
}

// /proc/self/cwd, root and exe (magic links, which the sentry's walk does
// not follow) lead where the caller's own do: its working directory, its
// root and its executable — each then decided like any file.
TEST_F(OpenHandler, TheCallersOwnLinksAreFollowed) {
  tracee_.ns_tgid = 7;
  tracee_.ns_tid = 9;
  tracee_.exe = "/etc/hostname";
  Write("/work/sub/notes", "here\n");
  fs::create_directories(root_ + "/proc/7");
  fs::create_symlink("/work/sub", root_ + "/proc/7/cwd");  // a plain link here, for lstat
  auto stat = [&](int number, const std::string& path) -> std::optional<struct stat> {
    Put(kPath, path);
    Verdict verdict = StatCall(tracee_, sandbox_, number, {kPath, kBuffer});
    if (verdict.error != 0) {
      ADD_FAILURE() << path << ": " << verdict.error;
      return std::nullopt;
    }
    return tracee_.ObjectAt<struct stat>(kBuffer);
  };
  auto inode = [&](const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat((root_ + path).c_str(), &st), 0) << path;
    return st.st_ino;
  };
  EXPECT_EQ(stat(SYS_stat, "/proc/self/cwd").value().st_ino, inode("/work/sub"));
  EXPECT_EQ(stat(SYS_stat, "/proc/self/cwd/notes").value().st_size, 5);
  EXPECT_EQ(stat(SYS_stat, "/proc/thread-self/cwd/notes").value().st_size, 5);
  EXPECT_EQ(stat(SYS_stat, "/proc/7/task/9/cwd/../sub/notes").value().st_size, 5);
  EXPECT_EQ(stat(SYS_stat, "/proc/self/root").value().st_ino, inode("/"));
  EXPECT_EQ(stat(SYS_stat, "/proc/self/root/etc/hostname").value().st_size, 10);
  EXPECT_EQ(stat(SYS_stat, "/proc/self/exe").value().st_size, 10);
  EXPECT_TRUE(S_ISLNK(stat(SYS_lstat, "/proc/self/cwd").value().st_mode));  // the link itself

  auto error = [&](int number, const std::string& path) {
    Put(kPath, path);
    return StatCall(tracee_, sandbox_, number, {kPath, kBuffer}).error;
  };
  EXPECT_EQ(error(SYS_stat, "/proc/self/exe/x"), ENOTDIR);
  EXPECT_EQ(error(SYS_stat, "/proc/self/root/etc/secret"), ENOENT);
  EXPECT_EQ(error(SYS_stat, "/proc/self/cwd/../../../etc/secret"), ENOENT);
  EXPECT_EQ(error(SYS_stat, "/proc/8/cwd"), ENOENT);  // not the caller's: not followed
  tracee_.exe = "/etc/secret";
  EXPECT_EQ(error(SYS_stat, "/proc/self/exe"), ENOENT);  // hidden, wherever it is named from

  EXPECT_EQ(ReadAll(Open("/proc/self/cwd/notes", O_RDONLY)), "here\n");
  EXPECT_EQ(Resolved(), "/work/sub/notes");
  EXPECT_EQ(ReadAll(Open("/proc/self/root/etc/hostname", O_RDONLY)), "container\n");
  EXPECT_EQ(Open("/proc/self/exe", O_RDONLY).error, ENOENT);
  tracee_.exe = "/etc/hostname";
  EXPECT_EQ(ReadAll(Open("/proc/self/exe", O_RDONLY)), "container\n");
  EXPECT_EQ(Open("/proc/self/exe", O_WRONLY).error, EACCES);  // read-only by the policy
  EXPECT_EQ(Open("/proc/self/root/tmp/made", O_WRONLY | O_CREAT).kind, Verdict::Kind::kInstallFd);
  EXPECT_TRUE(fs::exists(root_ + "/tmp/made"));
}

TEST_F(OpenHandler, ReadlinkReadsTheLinkItself) {
  fs::create_symlink("/etc/secret", root_ + "/tmp/link");
  const std::string link = "/tmp/link";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(link.c_str(), link.size() + 1))));
  Verdict verdict = StatCall(tracee_, sandbox_, SYS_readlink, {kPath, kBuffer, 64});
  EXPECT_EQ(verdict.value, 11);
  EXPECT_EQ(std::string(tracee_.ObjectAt<std::array<char, 11>>(kBuffer).data(), 11), "/etc/secret");
  // Truncated to the buffer, as the kernel does.
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_readlink, {kPath, kBuffer, 4}).value, 4);
  fs::create_symlink("/etc/hostname", root_ + "/etc/secret-link");
  policy_.files.insert(
      policy_.files.begin(),
      config::FileRule{.pattern = "/etc/secret-link", .access = config::FileAccess::kHidden});
  const std::string hidden = "/etc/secret-link";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(hidden.c_str(), hidden.size() + 1))));
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_readlink, {kPath, kBuffer, 64}).error, ENOENT);
  const std::string file = "/etc/hostname";
  ASSERT_TRUE(tracee_.Write(kPath, std::as_bytes(std::span(file.c_str(), file.size() + 1))));
  EXPECT_EQ(StatCall(tracee_, sandbox_, SYS_readlink, {kPath, kBuffer, 64}).error, EINVAL);
}

TEST(Paths, CallerOwnNamesAreRewritten) {
  ThreadStatus thread{.ns_tgid = 7, .ns_tid = 9};
  EXPECT_EQ(RewriteSelf("/proc/self/status", thread), "/proc/7/status");
  EXPECT_EQ(RewriteSelf("/proc/thread-self/comm", thread), "/proc/7/task/9/comm");
  EXPECT_EQ(RewriteSelf("//dev//stdin", thread), "/proc/7/fd/0");
  EXPECT_EQ(RewriteSelf("/proc/selfish", thread), "/proc/selfish");
  // procfs's links to self/mounts and self/net; the link itself unfollowed.
  EXPECT_EQ(RewriteSelf("/proc/mounts", thread), "/proc/7/mounts");
  EXPECT_EQ(RewriteSelf("/proc/net/tcp", thread), "/proc/7/net/tcp");
  EXPECT_EQ(RewriteSelf("/proc/netstat", thread), "/proc/netstat");
  EXPECT_EQ(SelfLink("/proc//net"), "/proc/net");
  EXPECT_EQ(SelfLink("/proc/net/dev"), std::nullopt);
  EXPECT_EQ(OwnDescriptor("/proc/7/fd/12", thread), 12);
  EXPECT_EQ(OwnDescriptor("/proc/7/task/9/fd/3", thread), 3);
  EXPECT_EQ(OwnDescriptor("/proc/8/fd/3", thread), std::nullopt);
  EXPECT_EQ(OwnDescriptor("/proc/7/fd/3/x", thread), std::nullopt);
}

// A wait the sentry makes for a thread ends only on a signal the thread
// would take now.
TEST(ThreadStatusTest, SignalDeliverableIsPendingNeitherBlockedNorIgnored) {
  const std::string none =
      "SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"
      "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n";
  EXPECT_FALSE(SignalDeliverable(none));
  // SIGALRM (14: bit 13) pending for the process.
  EXPECT_TRUE(
      SignalDeliverable("SigPnd:\t0000000000000000\nShdPnd:\t0000000000002000\n"
                        "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"));
  EXPECT_TRUE(SignalDeliverable("SigPnd:\t0000000000002000\nShdPnd:\t0000000000000000\n"));
  EXPECT_FALSE(
      SignalDeliverable("SigPnd:\t0000000000002000\nShdPnd:\t0000000000000000\n"
                        "SigBlk:\t0000000000002000\nSigIgn:\t0000000000000000\n"));
  EXPECT_FALSE(
      SignalDeliverable("SigPnd:\t0000000000002000\nShdPnd:\t0000000000000000\n"
                        "SigBlk:\t0000000000000000\nSigIgn:\t0000000000002000\n"));
  // SIGCHLD (17: bit 16), ignored by default: only a handler makes it count.
  EXPECT_FALSE(
      SignalDeliverable("SigPnd:\t0000000000010000\nShdPnd:\t0000000000000000\n"
                        "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
                        "SigCgt:\t0000000000000000\n"));
  EXPECT_TRUE(
      SignalDeliverable("SigPnd:\t0000000000010000\nShdPnd:\t0000000000000000\n"
                        "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
                        "SigCgt:\t0000000000010000\n"));
}

TEST(ThreadStatusTest, SoftFileSizeLimitFromProcLimits) {
  const std::string header =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max cpu time              unlimited            unlimited            seconds   \n";
  EXPECT_EQ(SoftFileSizeLimit(
                header +
                "Max file size             10                   10                   bytes     \n"),
            10u);
  EXPECT_EQ(SoftFileSizeLimit(
                header +
                "Max file size             unlimited            unlimited            bytes     \n"),
            UINT64_MAX);
  EXPECT_EQ(SoftFileSizeLimit(header), UINT64_MAX);
}

TEST(ThreadStatusTest, ParsesCredentialsAndNamespaceIds) {
  Result<ThreadStatus> status = ParseThreadStatus(
      "Name:\tsh\nUmask:\t0027\nTgid:\t4242\nNStgid:\t4242\t7\nNSpid:\t4243\t9\n"
      "Uid:\t1000\t1001\t1002\t1003\nGid:\t100\t101\t102\t103\nGroups:\t4 24 27 \n"
      "CapEff:\t00000000a80425fb\n");
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(status->ruid, 1000u);
  EXPECT_EQ(status->euid, 1001u);
  EXPECT_EQ(status->fsuid, 1003u);
  EXPECT_EQ(status->rgid, 100u);
  EXPECT_EQ(status->egid, 101u);
  EXPECT_EQ(status->fsgid, 103u);
  EXPECT_EQ(status->groups, (std::vector<gid_t>{4, 24, 27}));
  EXPECT_EQ(status->umask, 027u);
  EXPECT_EQ(status->tgid, 4242);
  EXPECT_EQ(status->ns_tgid, 7);
  EXPECT_EQ(status->ns_tid, 9);
  EXPECT_EQ(status->cap_effective, 0xa80425fbu);
  EXPECT_FALSE(ParseThreadStatus("Name:\tx\n"));
}

// Beneath a kernel write tree (a Landlock layer holds every write there
// exactly) an open for writing, decided and audited, is the kernel's; an
// open that could read a file without a write check, or one elsewhere,
// stays the sentry's.
TEST_F(OpenHandler, WritesBeneathAKernelWriteTreeAreTheKernels) {
  sandbox_.kernel_write_trees = {"/tmp"};
  Write("/tmp/mine", "mine\n");
  EXPECT_EQ(Open("/tmp/mine", O_WRONLY | O_APPEND).kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Resolved(), "/tmp/mine");
  EXPECT_EQ(Open("/tmp/mine", O_RDONLY | O_TRUNC).kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Open("/tmp/new", O_WRONLY | O_CREAT).kind, Verdict::Kind::kContinue);
  EXPECT_FALSE(std::filesystem::exists(root_ + "/tmp/new")) << "created by the sentry";
  // Read-only with O_CREAT opens an existing file with no write check.
  EXPECT_EQ(Open("/tmp/mine", O_RDONLY | O_CREAT).kind, Verdict::Kind::kInstallFd);
  EXPECT_EQ(Open("/tmp", O_TMPFILE | O_WRONLY).kind, Verdict::Kind::kInstallFd);
  // Outside the trees the sentry decides and opens, as before.
  EXPECT_EQ(Open("/etc/hostname", O_WRONLY).error, EACCES);
  sandbox_.kernel_write_trees = {};
  EXPECT_EQ(Open("/tmp/mine", O_WRONLY).kind, Verdict::Kind::kInstallFd);
}

// Under a policy that refuses no file (audit-only's) every open is decided,
// audited by the path it resolved to, and left to the kernel, which opens
// as the workload. Under the fixture's policy, which restricts files, the
// sentry opens.
TEST_F(OpenHandler, UnderAPolicyRefusingNoFileEveryOpenIsTheKernels) {
  config::Policy open_policy;
  sandbox_.policy = &open_policy;
  Write("/etc/hostname", "h\n");
  EXPECT_EQ(Open("/etc/hostname", O_RDWR).kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Resolved(), "/etc/hostname");
  EXPECT_EQ(Open("/etc/secret", O_RDONLY).kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Open("/tmp", O_TMPFILE | O_WRONLY).kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Open("/etc/new", O_WRONLY | O_CREAT).kind, Verdict::Kind::kContinue);
  EXPECT_FALSE(std::filesystem::exists(root_ + "/etc/new")) << "created by the sentry";
  sandbox_.policy = &policy_;
  EXPECT_EQ(Open("/etc/hostname", O_RDONLY).kind, Verdict::Kind::kInstallFd);
}

}  // namespace
}  // namespace vigil::sentry
