// openat2 through the open handler: the struct's rules before the path,
// the file policy as for openat, and the workload's RESOLVE_* flags on top
// of the sentry's own walk — they narrow it, never widen it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "base/strings.h"
#include "base/unique_fd.h"
#include "tests/sentry/open_fixture.h"

namespace vigil::sentry {
namespace {

namespace fs = std::filesystem;

// The struct at the end of the fake's 8 KiB, clear of long paths at kPath.
constexpr std::uint64_t kHow = FakeTracee::kBase + 8192 - 64;

class Openat2Handler : public OpenFixture {
 protected:
  Verdict Openat2(int dirfd, const std::string& path, open_how how,
                  std::uint64_t size = sizeof(open_how)) {
    Put(kPath, path);
    EXPECT_TRUE(tracee_.WriteObject(kHow, how));
    return Call(SYS_openat2, {static_cast<std::uint64_t>(dirfd), kPath, kHow, size});
  }
  Verdict Openat2(const std::string& path, std::uint64_t flags, std::uint64_t resolve = 0) {
    return Openat2(AT_FDCWD, path, {.flags = flags, .resolve = resolve});
  }

  UniqueFd Directory(const std::string& path) {
    UniqueFd fd(::open((root_ + path).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    EXPECT_TRUE(fd) << path;
    return fd;
  }
};

TEST_F(Openat2Handler, OpensLikeOpenat) {
  Verdict verdict = Openat2("/etc/hostname", O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(ReadAll(verdict), "container\n");
  EXPECT_TRUE(verdict.cloexec);
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  EXPECT_EQ(Resolved(), "/etc/hostname");
  EXPECT_EQ(Audited("resolve"), "0x0");
  EXPECT_FALSE(Openat2("/etc/hostname", O_RDONLY).cloexec);
}

TEST_F(Openat2Handler, ThePolicyDecidesAsForOpenat) {
  Write("/etc/denied", "x");
  EXPECT_EQ(Openat2("/etc/secret", O_RDONLY).error, ENOENT);
  EXPECT_EQ(Openat2("/etc/denied", O_RDONLY).error, EACCES);
  Verdict written = Openat2("/etc/hostname", O_WRONLY);
  EXPECT_EQ(written.error, EACCES);
  EXPECT_EQ(written.decision, Decision::kDeny);
  Verdict created = Openat2(AT_FDCWD, "/tmp/made", {.flags = O_WRONLY | O_CREAT, .mode = 0600});
  ASSERT_EQ(created.kind, Verdict::Kind::kInstallFd) << created.error;
  struct stat st {};
  ASSERT_EQ(::stat((root_ + "/tmp/made").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

// The struct is checked before the path is read: a bad struct with a bad
// path is the struct's error.
TEST_F(Openat2Handler, TheStructIsCheckedFirst) {
  EXPECT_EQ(Openat2(AT_FDCWD, "/etc/hostname", {}, 23).error, EINVAL);
  EXPECT_EQ(Openat2(AT_FDCWD, "/etc/hostname", {}, 4097).error, E2BIG);
  EXPECT_EQ(Openat2(AT_FDCWD, "/etc/hostname", {}, 64).kind, Verdict::Kind::kInstallFd);
  ASSERT_TRUE(tracee_.WriteObject(kHow + 40, std::uint8_t{1}));
  EXPECT_EQ(Call(SYS_openat2, {static_cast<std::uint64_t>(AT_FDCWD), kPath, kHow, 64}).error,
            E2BIG);
  EXPECT_EQ(Audited("path"), "");
  EXPECT_EQ(Openat2("/etc/hostname", O_RDONLY | (std::uint64_t{1} << 32)).error, EINVAL);
  EXPECT_EQ(Openat2("/etc/hostname", O_RDONLY, 0x40).error, EINVAL);
  EXPECT_EQ(Openat2(AT_FDCWD, "/etc/hostname", {.flags = O_RDONLY, .mode = 0644}).error, EINVAL);
  EXPECT_EQ(Openat2("/tmp", O_CREAT | O_DIRECTORY).error, EINVAL);
  EXPECT_EQ(Call(SYS_openat2, {static_cast<std::uint64_t>(AT_FDCWD), 0x8, kHow, 24}).error, EINVAL);
  EXPECT_EQ(Call(SYS_openat2, {static_cast<std::uint64_t>(AT_FDCWD), kPath, 0x8, 24}).error,
            EFAULT);
}

TEST_F(Openat2Handler, BadPathsFailAsTheKernelWould) {
  ASSERT_TRUE(tracee_.WriteObject(kHow, open_how{.flags = O_RDONLY}));
  EXPECT_EQ(Call(SYS_openat2, {static_cast<std::uint64_t>(AT_FDCWD), 0x8, kHow, 24}).error, EFAULT);
  EXPECT_EQ(Openat2(std::string(4200, 'a'), O_RDONLY).error, ENAMETOOLONG);
  EXPECT_EQ(Openat2("", O_RDONLY).error, ENOENT);
}

TEST_F(Openat2Handler, StaleNotificationOpensNothing) {
  tracee_.valid = false;
  Verdict verdict = Openat2(AT_FDCWD, "/tmp/never", {.flags = O_WRONLY | O_CREAT, .mode = 0600});
  EXPECT_EQ(verdict.kind, Verdict::Kind::kStale);
  EXPECT_FALSE(fs::exists(root_ + "/tmp/never"));
}

TEST_F(Openat2Handler, NoSymlinksRefusesEveryLink) {
  fs::create_symlink("/etc/hostname", root_ + "/tmp/link");
  fs::create_symlink("../etc", root_ + "/tmp/etc");
  EXPECT_EQ(ReadAll(Openat2("/tmp/link", O_RDONLY)), "container\n");
  EXPECT_EQ(Openat2("/tmp/link", O_RDONLY, RESOLVE_NO_SYMLINKS).error, ELOOP);
  EXPECT_EQ(Openat2("/tmp/etc/hostname", O_RDONLY, RESOLVE_NO_SYMLINKS).error, ELOOP);
  // O_CREAT through a dangling link follows it, unless links are refused.
  fs::create_symlink("made", root_ + "/tmp/dangling");
  Verdict verdict =
      Openat2(AT_FDCWD, "/tmp/dangling",
              {.flags = O_WRONLY | O_CREAT, .mode = 0600, .resolve = RESOLVE_NO_SYMLINKS});
  EXPECT_EQ(verdict.error, ELOOP);
  EXPECT_FALSE(fs::exists(root_ + "/tmp/made"));
}

// /proc/self is a symlink: the sentry, which rewrites it to the caller's
// /proc/TGID, must not do so when symlinks are refused.
TEST_F(Openat2Handler, NoSymlinksMeetsProcSelfAsALink) {
  tracee_.ns_tgid = 7;
  fs::create_directories(root_ + "/proc/7");
  fs::create_symlink("7", root_ + "/proc/self");
  Write("/proc/7/status", "Name:\tx\n");
  EXPECT_EQ(Openat2("/proc/self/status", O_RDONLY).kind, Verdict::Kind::kInstallFd);
  EXPECT_EQ(Openat2("/proc/self/status", O_RDONLY, RESOLVE_NO_SYMLINKS).error, ELOOP);
}

// The caller's own /proc/self/fd/N is reopened for open and openat; under
// RESOLVE_NO_MAGICLINKS or RESOLVE_NO_SYMLINKS it is the magic link the
// kernel would refuse to follow. The fake container's root is the host's
// here, so that /proc is the real one.
TEST_F(Openat2Handler, NoMagicLinksRefusesTheCallersOwnDescriptors) {
  tracee_.root = "/";
  tracee_.ns_tgid = ::getpid();
  tracee_.ns_tid = ::gettid();
  UniqueFd held(::open((root_ + "/etc/hostname").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(held);
  const std::string own = StrCat("/proc/self/fd/", held.Get());
  EXPECT_EQ(ReadAll(Openat2(own, O_RDONLY)), "container\n");
  EXPECT_EQ(ReadAll(Openat2(own, O_RDONLY, RESOLVE_CACHED)), "container\n");
  EXPECT_EQ(Openat2(own, O_RDONLY, RESOLVE_NO_MAGICLINKS).error, ELOOP);
  EXPECT_EQ(Openat2(own, O_RDONLY, RESOLVE_NO_SYMLINKS).error, ELOOP);
}

// RESOLVE_BENEATH: nothing outside the dirfd, by "..", an absolute path or
// a symlink; the policy still decides on what is beneath.
TEST_F(Openat2Handler, BeneathStaysUnderTheDirfd) {
  UniqueFd work = Directory("/work");
  const int dirfd = work.Get();
  Write("/work/sub/notes", "here\n");
  fs::create_symlink("/etc/hostname", root_ + "/work/absolute");
  fs::create_symlink("../etc/hostname", root_ + "/work/up");
  fs::create_symlink("sub/notes", root_ + "/work/inside");
  const open_how beneath{.flags = O_RDONLY, .resolve = RESOLVE_BENEATH};
  EXPECT_EQ(ReadAll(Openat2(dirfd, "sub/notes", beneath)), "here\n");
  EXPECT_EQ(Resolved(), "/work/sub/notes");
  EXPECT_EQ(ReadAll(Openat2(dirfd, "inside", beneath)), "here\n");
  EXPECT_EQ(ReadAll(Openat2(dirfd, "sub/../sub/notes", beneath)), "here\n");
  EXPECT_EQ(Openat2(dirfd, "sub/../../etc/hostname", beneath).error, EXDEV);
  EXPECT_EQ(Openat2(dirfd, "/etc/hostname", beneath).error, EXDEV);
  EXPECT_EQ(Openat2(dirfd, "absolute", beneath).error, EXDEV);
  EXPECT_EQ(Openat2(dirfd, "up", beneath).error, EXDEV);
  UniqueFd etc = Directory("/etc");
  EXPECT_EQ(Openat2(etc.Get(), "secret", beneath).error, ENOENT);
  EXPECT_EQ(ReadAll(Openat2(etc.Get(), "hostname", beneath)), "container\n");
  // From the working directory (/work/sub) too.
  EXPECT_EQ(ReadAll(Openat2("notes", O_RDONLY, RESOLVE_BENEATH)), "here\n");
  EXPECT_EQ(Openat2("../absolute", O_RDONLY, RESOLVE_BENEATH).error, EXDEV);
}

// RESOLVE_IN_ROOT: the dirfd is the root — "/" and ".." stop there, and
// absolute symlinks start there.
TEST_F(Openat2Handler, InRootTreatsTheDirfdAsTheRoot) {
  UniqueFd work = Directory("/work");
  const int dirfd = work.Get();
  Write("/work/hostname", "work\n");
  fs::create_symlink("/hostname", root_ + "/work/absolute");
  const open_how in_root{.flags = O_RDONLY, .resolve = RESOLVE_IN_ROOT};
  EXPECT_EQ(ReadAll(Openat2(dirfd, "/hostname", in_root)), "work\n");
  EXPECT_EQ(Resolved(), "/work/hostname");
  EXPECT_EQ(ReadAll(Openat2(dirfd, "../../hostname", in_root)), "work\n");
  EXPECT_EQ(ReadAll(Openat2(dirfd, "absolute", in_root)), "work\n");
  EXPECT_EQ(Openat2(dirfd, "/etc/hostname", in_root).error, ENOENT);
  // A dangling absolute symlink is created beneath the dirfd as well.
  UniqueFd tmp = Directory("/tmp");
  fs::create_symlink("/made", root_ + "/tmp/dangling");
  Verdict made = Openat2(tmp.Get(), "dangling",
                         {.flags = O_WRONLY | O_CREAT, .mode = 0600, .resolve = RESOLVE_IN_ROOT});
  EXPECT_EQ(made.kind, Verdict::Kind::kInstallFd) << made.error;
  EXPECT_TRUE(fs::exists(root_ + "/tmp/made"));
  EXPECT_FALSE(fs::exists(root_ + "/made"));
  // Beneath /tmp, the same absolute link leads out.
  EXPECT_EQ(Openat2(tmp.Get(), "dangling",
                    {.flags = O_WRONLY | O_CREAT, .mode = 0600, .resolve = RESOLVE_BENEATH})
                .error,
            EXDEV);
  // A relative dangling link is followed beneath the dirfd, and no further.
  fs::create_symlink("made-beneath", root_ + "/tmp/dangling-in");
  EXPECT_EQ(Openat2(tmp.Get(), "dangling-in",
                    {.flags = O_WRONLY | O_CREAT, .mode = 0600, .resolve = RESOLVE_BENEATH})
                .kind,
            Verdict::Kind::kInstallFd);
  EXPECT_TRUE(fs::exists(root_ + "/tmp/made-beneath"));
  fs::create_symlink("../elsewhere", root_ + "/tmp/dangling-out");
  EXPECT_EQ(Openat2(tmp.Get(), "dangling-out",
                    {.flags = O_WRONLY | O_CREAT, .mode = 0600, .resolve = RESOLVE_BENEATH})
                .error,
            EXDEV);
  EXPECT_FALSE(fs::exists(root_ + "/elsewhere"));
}

// A scoped walk starts from the workload's dirfd only if that is the
// container's own directory at the path the workload sees for it: a
// descriptor from outside the container reaches nothing beneath it.
TEST_F(Openat2Handler, ADirfdFromOutsideTheContainerIsNoBase) {
  char outside[] = "/tmp/vigil-outside-XXXXXX";
  ASSERT_NE(::mkdtemp(outside), nullptr);
  std::ofstream(std::string(outside) + "/host-secret") << "host\n";
  // The container has a directory at the same path: it is not the one the
  // workload holds either.
  fs::create_directories(root_ + outside);
  Write(std::string(outside) + "/host-secret", "inside\n");
  UniqueFd foreign(::open(outside, O_PATH | O_DIRECTORY | O_CLOEXEC));
  for (std::uint64_t resolve : {RESOLVE_BENEATH, RESOLVE_IN_ROOT, RESOLVE_NO_XDEV}) {
    EXPECT_EQ(Openat2(foreign.Get(), "host-secret", {.flags = O_RDONLY, .resolve = resolve}).error,
              ENOENT)
        << resolve;
  }
  fs::remove_all(outside);
  EXPECT_EQ(Openat2(9999, "x", {.flags = O_RDONLY, .resolve = RESOLVE_BENEATH}).error, EBADF);
  UniqueFd file(::open((root_ + "/etc/hostname").c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(Openat2(file.Get(), "x", {.flags = O_RDONLY, .resolve = RESOLVE_BENEATH}).error,
            ENOTDIR);
}

TEST_F(Openat2Handler, NoXdevWalksFromTheDirfd) {
  Write("/work/sub/notes", "here\n");
  EXPECT_EQ(ReadAll(Openat2("notes", O_RDONLY, RESOLVE_NO_XDEV)), "here\n");
  EXPECT_EQ(ReadAll(Openat2("../../etc/hostname", O_RDONLY, RESOLVE_NO_XDEV)), "container\n");
  EXPECT_EQ(ReadAll(Openat2("/etc/hostname", O_RDONLY, RESOLVE_NO_XDEV)), "container\n");
  EXPECT_EQ(Openat2("../../etc/secret", O_RDONLY, RESOLVE_NO_XDEV).error, ENOENT);
  // The fake's root is no mount of its own, so ".." does not stop there
  // as it does at a container's root: what lies above is still refused.
  Verdict above = Openat2("../../../etc/hostname", O_RDONLY, RESOLVE_NO_XDEV);
  EXPECT_NE(above.kind, Verdict::Kind::kInstallFd);
}

TEST_F(Openat2Handler, CachedLookupsNeitherCreateNorTruncate) {
  EXPECT_EQ(Openat2(AT_FDCWD, "/tmp/new",
                    {.flags = O_WRONLY | O_CREAT, .mode = 0600, .resolve = RESOLVE_CACHED})
                .error,
            EAGAIN);
  EXPECT_FALSE(fs::exists(root_ + "/tmp/new"));
  EXPECT_EQ(ReadAll(Openat2("/etc/hostname", O_RDONLY)), "container\n");  // now cached
  EXPECT_EQ(ReadAll(Openat2("/etc/hostname", O_RDONLY, RESOLVE_CACHED)), "container\n");
}

}  // namespace
}  // namespace vigil::sentry
