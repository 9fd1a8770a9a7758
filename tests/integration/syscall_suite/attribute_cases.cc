// The calls that change a file in place: chmod, chown, truncate and the
// utime family, in their path, *at and descriptor forms, and the ioctls
// that change inode flags through a descriptor opened for reading.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

#include <cerrno>
#include <ctime>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// fchmodat2 (Linux 6.6) is newer than the build host's headers.
constexpr long kSysFchmodat2 = 452;

std::string Then(long rc, const char* path) { return Line({Rc(rc), LstatOf(path)}); }

// Times a case sets, far from now so "set as asked" and "now" differ.
constexpr time_t kAtime = 1000000000;
constexpr time_t kMtime = 1100000000;

// How `path`'s times compare with what a case asked for: each of atime
// and mtime is "set" (the fixed value asked), "now" (within a minute of
// `since`), "kept" (equal to `before`) or "other".
std::string Times(const char* path, const struct stat& before, time_t since, bool follow = false) {
  struct stat st;
  if (::syscall(follow ? SYS_stat : SYS_lstat, path, &st) < 0) return "stat " + Rc(-1);
  auto judge = [&](const timespec& now, const timespec& old, time_t asked) -> std::string {
    if (now.tv_sec == asked) return "set";
    if (now.tv_sec == old.tv_sec && now.tv_nsec == old.tv_nsec) return "kept";
    if (now.tv_sec >= since && now.tv_sec < since + 60) return "now";
    return "other";
  };
  return "atime=" + judge(st.st_atim, before.st_atim, kAtime) +
         " mtime=" + judge(st.st_mtim, before.st_mtim, kMtime);
}

// Sets `path`'s times to something neither asked nor now, calls `change`,
// and reports its result and the times it left.
template <typename Change>
std::string TimesAfter(const char* path, Change change, bool follow = true) {
  timespec old[2] = {{12345, 0}, {23456, 0}};
  if (::syscall(SYS_utimensat, AT_FDCWD, path, old, follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0) {
    return "setup " + Rc(-1);
  }
  struct stat before;
  ::syscall(follow ? SYS_stat : SYS_lstat, path, &before);
  time_t since = ::time(nullptr) - 1;
  std::string text = Rc(change());
  return text + " " + Times(path, before, since, follow);
}

// `change()` run in "dir" as the working directory, its result.
template <typename Change>
long InDir(Change change) {
  if (::chdir("dir") < 0) return -1;
  long rc = change();
  int error = errno;
  if (::chdir("..") < 0) return -1;
  errno = error;
  return rc;
}

// FS_IOC_SETFLAGS of the no-dump flag on `fd`, its result and whether the
// flag then reads as set; the flags are put back after.
std::string SetNoDump(int fd) {
  int flags = 0;
  if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) return "getflags " + Rc(-1);
  const int wanted = flags | FS_NODUMP_FL;
  std::string text = Rc(::syscall(SYS_ioctl, fd, FS_IOC_SETFLAGS, &wanted));
  int after = 0;
  ::ioctl(fd, FS_IOC_GETFLAGS, &after);
  ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
  return Line({text, (after & FS_NODUMP_FL) != 0 ? "nodump" : "dump"});
}

}  // namespace

std::vector<Case> AttributeCases() {
  return {
      {"attributes-fixture", [] { return MakeFixture("attributes"); }},
      // chmod, fchmodat, fchmodat2, fchmod
      {"chmod-file", [] { return Then(::syscall(SYS_chmod, "file", 0600), "file"); }},
      {"chmod-special-bits", [] { return Then(::syscall(SYS_chmod, "exec", 07755), "exec"); }},
      {"chmod-through-symlink",
       [] {
         return Line(
             {Rc(::syscall(SYS_chmod, "link", 0640)), LstatOf("file"), "link", LstatOf("link")});
       }},
      {"chmod-dir", [] { return Then(::syscall(SYS_chmod, "dir", 0700), "dir"); }},
      {"chmod-enoent", [] { return Rc(::syscall(SYS_chmod, "missing", 0644)); }},
      {"chmod-dangling", [] { return Rc(::syscall(SYS_chmod, "dangling", 0644)); }},
      {"chmod-read-only-root", [] { return Rc(::syscall(SYS_chmod, kOnlyInTheContainer, 0755)); }},
      {"chmod-efault", [] { return Rc(::syscall(SYS_chmod, kBadPointer, 0644)); }},
      {"fchmodat-dirfd",
       [] {
         return Line({WithFd("dir", O_RDONLY | O_DIRECTORY,
                             [](int fd) { return Rc(::syscall(SYS_fchmodat, fd, "inner", 0604)); }),
                      LstatOf("dir/inner")});
       }},
      {"fchmodat2-nofollow-symlink",
       [] { return Rc(::syscall(kSysFchmodat2, AT_FDCWD, "link", 0600, AT_SYMLINK_NOFOLLOW)); }},
      {"fchmodat2-nofollow-file",
       [] {
         return Then(::syscall(kSysFchmodat2, AT_FDCWD, "file", 0660, AT_SYMLINK_NOFOLLOW), "file");
       }},
      {"fchmodat2-empty-path",
       [] {
         return Line({WithFd("file", O_RDONLY,
                             [](int fd) {
                               return Rc(::syscall(kSysFchmodat2, fd, "", 0644, AT_EMPTY_PATH));
                             }),
                      LstatOf("file")});
       }},
      {"fchmod-fd",
       [] {
         return Line({WithFd("secret", O_RDONLY,
                             [](int fd) { return Rc(::syscall(SYS_fchmod, fd, 0400)); }),
                      LstatOf("secret")});
       }},
      {"fchmod-opath-fd",
       [] {
         return WithFd("file", O_PATH, [](int fd) { return Rc(::syscall(SYS_fchmod, fd, 0644)); });
       }},
      {"chmod-unprivileged-not-owner",
       [] {
         return AsUser(1000, 1000, 1000, [] { return Rc(::syscall(SYS_chmod, "file", 0666)); });
       }},
      // chown, lchown, fchownat, fchown
      {"chown-file", [] { return Then(::syscall(SYS_chown, "file", 1000, 1000), "file"); }},
      {"chown-keep-ids", [] { return Then(::syscall(SYS_chown, "file", -1, -1), "file"); }},
      {"chown-clears-setuid", [] { return Then(::syscall(SYS_chown, "exec", 1000, -1), "exec"); }},
      {"chown-through-symlink",
       [] {
         return Line({Rc(::syscall(SYS_chown, "link", 2000, 2000)), LstatOf("file"), "link",
                      LstatOf("link")});
       }},
      {"lchown-symlink",
       [] {
         return Line({Rc(::syscall(SYS_lchown, "link", 3000, 3000)), LstatOf("link"), "file",
                      LstatOf("file")});
       }},
      {"chown-enoent", [] { return Rc(::syscall(SYS_chown, "missing", 0, 0)); }},
      {"chown-read-only-root", [] { return Rc(::syscall(SYS_chown, kOnlyInTheContainer, 0, 0)); }},
      {"fchownat-nofollow",
       [] {
         return Then(::syscall(SYS_fchownat, AT_FDCWD, "dangling", 4000, 4000, AT_SYMLINK_NOFOLLOW),
                     "dangling");
       }},
      {"fchownat-dirfd",
       [] {
         return Line(
             {WithFd("dir", O_RDONLY | O_DIRECTORY,
                     [](int fd) { return Rc(::syscall(SYS_fchownat, fd, "inner", 5, 5, 0)); }),
              LstatOf("dir/inner")});
       }},
      {"fchownat-empty-path",
       [] {
         return Line({WithFd("secret", O_RDONLY,
                             [](int fd) {
                               return Rc(::syscall(SYS_fchownat, fd, "", 6, 6, AT_EMPTY_PATH));
                             }),
                      LstatOf("secret")});
       }},
      {"fchownat-bad-flags",
       [] { return Rc(::syscall(SYS_fchownat, AT_FDCWD, "file", 0, 0, 0x1)); }},
      {"fchown-fd",
       [] {
         return Line(
             {WithFd("file", O_RDONLY, [](int fd) { return Rc(::syscall(SYS_fchown, fd, 0, 0)); }),
              LstatOf("file")});
       }},
      {"chown-unprivileged",
       [] {
         return AsUser(1000, 1000, 1000, [] { return Rc(::syscall(SYS_chown, "exec", 0, 0)); });
       }},
      {"chown-unprivileged-own-group",
       [] {
         // exec belongs to uid 1000 (chown-clears-setuid): its owner may give
         // it a group it is in, and no other (2000).
         return AsUser(1000, 1000, 1000, [] {
           return Line({"own", Rc(::syscall(SYS_chown, "exec", -1, 1000)), "other",
                        Rc(::syscall(SYS_chown, "exec", -1, 2000))});
         });
       }},
      // truncate, ftruncate
      {"truncate-shrink", [] { return Then(::syscall(SYS_truncate, "file", 3L), "file"); }},
      {"truncate-grow", [] { return Then(::syscall(SYS_truncate, "file", 4096L), "file"); }},
      {"truncate-through-symlink",
       [] { return Then(::syscall(SYS_truncate, "link", 1L), "file"); }},
      {"truncate-dir", [] { return Rc(::syscall(SYS_truncate, "dir", 0L)); }},
      {"truncate-enoent", [] { return Rc(::syscall(SYS_truncate, "missing", 0L)); }},
      {"truncate-negative", [] { return Rc(::syscall(SYS_truncate, "file", -1L)); }},
      {"truncate-read-only-root",
       [] { return Rc(::syscall(SYS_truncate, kOnlyInTheContainer, 0L)); }},
      {"truncate-unprivileged",
       [] {
         return AsUser(1000, 1000, 1000, [] { return Rc(::syscall(SYS_truncate, "secret", 0L)); });
       }},
      {"ftruncate-fd",
       [] {
         return Line(
             {WithFd("file", O_WRONLY, [](int fd) { return Rc(::syscall(SYS_ftruncate, fd, 7L)); }),
              LstatOf("file")});
       }},
      {"ftruncate-read-only-fd",
       [] {
         return WithFd("file", O_RDONLY,
                       [](int fd) { return Rc(::syscall(SYS_ftruncate, fd, 0L)); });
       }},
      // utime, utimes, futimesat, utimensat
      {"utime-set",
       [] {
         return TimesAfter("file", [] {
           utimbuf times{.actime = kAtime, .modtime = kMtime};
           return ::syscall(SYS_utime, "file", &times);
         });
       }},
      {"utime-now",
       [] { return TimesAfter("file", [] { return ::syscall(SYS_utime, "file", nullptr); }); }},
      {"utime-enoent", [] { return Rc(::syscall(SYS_utime, "missing", nullptr)); }},
      {"utimes-set",
       [] {
         return TimesAfter("file", [] {
           timeval times[2] = {{kAtime, 0}, {kMtime, 0}};
           return ::syscall(SYS_utimes, "file", times);
         });
       }},
      {"utimes-bad-usec",
       [] {
         timeval times[2] = {{kAtime, 2000000}, {kMtime, 0}};
         return Rc(::syscall(SYS_utimes, "file", times));
       }},
      {"futimesat-dirfd",
       [] {
         return TimesAfter("dir/inner", [] {
           int fd = static_cast<int>(
               ::syscall(SYS_openat, AT_FDCWD, "dir", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
           timeval times[2] = {{kAtime, 0}, {kMtime, 0}};
           long rc = ::syscall(SYS_futimesat, fd, "inner", times);
           int error = errno;
           ::close(fd);
           errno = error;
           return rc;
         });
       }},
      {"utimensat-set",
       [] {
         return TimesAfter("file", [] {
           timespec times[2] = {{kAtime, 0}, {kMtime, 0}};
           return ::syscall(SYS_utimensat, AT_FDCWD, "file", times, 0);
         });
       }},
      {"utimensat-now-and-omit",
       [] {
         return TimesAfter("file", [] {
           timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
           return ::syscall(SYS_utimensat, AT_FDCWD, "file", times, 0);
         });
       }},
      {"utimensat-omit-both",
       [] {
         return TimesAfter("file", [] {
           timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
           return ::syscall(SYS_utimensat, AT_FDCWD, "file", times, 0);
         });
       }},
      {"utimensat-null-times",
       [] {
         return TimesAfter("file",
                           [] { return ::syscall(SYS_utimensat, AT_FDCWD, "file", nullptr, 0); });
       }},
      {"utimensat-nofollow-symlink",
       [] {
         return TimesAfter(
             "link",
             [] {
               timespec times[2] = {{kAtime, 0}, {kMtime, 0}};
               return ::syscall(SYS_utimensat, AT_FDCWD, "link", times, AT_SYMLINK_NOFOLLOW);
             },
             false);
       }},
      {"utimensat-through-symlink",
       [] {
         return TimesAfter("link", [] {
           timespec times[2] = {{kAtime, 0}, {0, UTIME_OMIT}};
           return ::syscall(SYS_utimensat, AT_FDCWD, "link", times, 0);
         });
       }},
      {"utimensat-empty-path",
       [] {
         return TimesAfter("file", [] {
           int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "file", O_RDONLY | O_CLOEXEC));
           timespec times[2] = {{kAtime, 0}, {kMtime, 0}};
           long rc = ::syscall(SYS_utimensat, fd, "", times, AT_EMPTY_PATH);
           int error = errno;
           ::close(fd);
           errno = error;
           return rc;
         });
       }},
      {"utimensat-fd-null-path",
       [] {
         return TimesAfter("file", [] {
           int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "file", O_RDONLY | O_CLOEXEC));
           timespec times[2] = {{0, UTIME_NOW}, {kMtime, 0}};
           long rc = ::syscall(SYS_utimensat, fd, nullptr, times, 0);
           int error = errno;
           ::close(fd);
           errno = error;
           return rc;
         });
       }},
      {"utimensat-enoent",
       [] { return Rc(::syscall(SYS_utimensat, AT_FDCWD, "missing", nullptr, 0)); }},
      {"utimensat-bad-nsec",
       [] {
         timespec times[2] = {{kAtime, 1000000000}, {kMtime, 0}};
         return Rc(::syscall(SYS_utimensat, AT_FDCWD, "file", times, 0));
       }},
      {"utimensat-bad-flags",
       [] { return Rc(::syscall(SYS_utimensat, AT_FDCWD, "file", nullptr, 0x1)); }},
      {"utimensat-read-only-root",
       [] { return Rc(::syscall(SYS_utimensat, AT_FDCWD, kOnlyInTheContainer, nullptr, 0)); }},
      {"utimensat-unprivileged-now",
       [] {
         // Not the owner, no write access: setting "now" is refused (EACCES),
         // setting an explicit time is refused (EPERM).
         return AsUser(1000, 1000, 1000, [] {
           timespec times[2] = {{kAtime, 0}, {kMtime, 0}};
           return Line({"now", Rc(::syscall(SYS_utimensat, AT_FDCWD, "secret", nullptr, 0)), "set",
                        Rc(::syscall(SYS_utimensat, AT_FDCWD, "secret", times, 0))});
         });
       }},
      // An empty path with AT_EMPTY_PATH and AT_FDCWD: the working directory.
      {"fchmodat2-empty-path-cwd",
       [] {
         return Then(
             InDir([] { return ::syscall(kSysFchmodat2, AT_FDCWD, "", 0750, AT_EMPTY_PATH); }),
             "dir");
       }},
      {"fchmodat-empty-path", [] { return Rc(::syscall(SYS_fchmodat, AT_FDCWD, "", 0750)); }},
      {"fchownat-empty-path-cwd",
       [] {
         return Then(
             InDir([] { return ::syscall(SYS_fchownat, AT_FDCWD, "", 7, 7, AT_EMPTY_PATH); }),
             "dir");
       }},
      {"fchownat-empty-path-without-flag",
       [] { return Rc(::syscall(SYS_fchownat, AT_FDCWD, "", 7, 7, 0)); }},
      {"utimensat-empty-path-cwd",
       [] {
         return TimesAfter("dir", [] {
           return InDir([] {
             timespec times[2] = {{kAtime, 0}, {kMtime, 0}};
             return ::syscall(SYS_utimensat, AT_FDCWD, "", times, AT_EMPTY_PATH);
           });
         });
       }},
      {"utimensat-cwd-null-path",
       [] { return Rc(::syscall(SYS_utimensat, AT_FDCWD, nullptr, nullptr, 0)); }},
      {"utimensat-fd-null-path-flags",
       [] {
         return WithFd("file", O_RDONLY, [](int fd) {
           return Rc(::syscall(SYS_utimensat, fd, nullptr, nullptr, AT_SYMLINK_NOFOLLOW));
         });
       }},
      // ioctl: inode flags set through a read-only descriptor (an owner
      // may), the argument copied once, the rest of the command type let
      // through.
      {"ioctl-setflags-read-only-fd", [] { return WithFd("file", O_RDONLY, SetNoDump); }},
      {"ioctl-setflags-bad-pointer",
       [] {
         return WithFd("file", O_RDONLY,
                       [](int fd) { return Rc(::syscall(SYS_ioctl, fd, FS_IOC_SETFLAGS, 16)); });
       }},
      {"ioctl-setflags-pipe",
       [] {
         int ends[2];
         if (::pipe(ends) < 0) return "pipe " + Rc(-1);
         int flags = 0;
         std::string text = Rc(::syscall(SYS_ioctl, ends[0], FS_IOC_SETFLAGS, &flags));
         ::close(ends[0]);
         ::close(ends[1]);
         return text;
       }},
      {"ioctl-fssetxattr-read-only-fd",
       [] {
         return WithFd("file", O_RDONLY, [](int fd) {
           fsxattr attributes{};
           if (::ioctl(fd, FS_IOC_FSGETXATTR, &attributes) < 0) return "fsgetxattr " + Rc(-1);
           const unsigned before = attributes.fsx_xflags;
           attributes.fsx_xflags |= FS_XFLAG_NODUMP;
           std::string text = Rc(::syscall(SYS_ioctl, fd, FS_IOC_FSSETXATTR, &attributes));
           fsxattr after{};
           ::ioctl(fd, FS_IOC_FSGETXATTR, &after);
           attributes.fsx_xflags = before;
           ::ioctl(fd, FS_IOC_FSSETXATTR, &attributes);
           return Line({text, (after.fsx_xflags & FS_XFLAG_NODUMP) != 0 ? "nodump" : "dump"});
         });
       }},
      {"utimensat-omit-both-missing",
       [] {
         timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
         return Rc(::syscall(SYS_utimensat, AT_FDCWD, "missing", times, 0));
       }},
  };
}

}  // namespace vigil::syscall_suite
