// stat, lstat, newfstatat, statx, readlink(at), statfs and
// inotify_add_watch: the fields that do not vary between runs, symlinks
// followed or not, and the errors.
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

std::string Stat(int nr, const char* path) {
  struct stat st;
  if (::syscall(nr, path, &st) < 0) return Rc(-1);
  return StatText(st);
}

std::string Fstatat(int dirfd, const char* path, int flags) {
  struct stat st;
  if (::syscall(SYS_newfstatat, dirfd, path, &st, flags) < 0) return Rc(-1);
  return StatText(st);
}

std::string Statx(int dirfd, const char* path, int flags) {
  struct statx stx;
  if (::syscall(SYS_statx, dirfd, path, flags, STATX_BASIC_STATS, &stx) < 0) return Rc(-1);
  char text[200];
  std::snprintf(text, sizeof text, "mode=0%o nlink=%u uid=%u gid=%u size=%llu rdev=%u:%u basic=%s",
                stx.stx_mode, stx.stx_nlink, stx.stx_uid, stx.stx_gid,
                static_cast<unsigned long long>(stx.stx_size), stx.stx_rdev_major,
                stx.stx_rdev_minor,
                (stx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS ? "yes" : "no");
  return text;
}

std::string Readlink(const char* path, std::size_t size) {
  char buffer[256];
  long n = ::syscall(SYS_readlink, path, buffer, size);
  if (n < 0) return Rc(n);
  return std::to_string(n) + " " + std::string(buffer, n);
}

std::string Readlinkat(int dirfd, const char* path, std::size_t size) {
  char buffer[256];
  long n = ::syscall(SYS_readlinkat, dirfd, path, buffer, size);
  if (n < 0) return Rc(n);
  return std::to_string(n) + " " + std::string(buffer, n);
}

std::string Statfs(const char* path) {
  struct statfs fs;
  if (::syscall(SYS_statfs, path, &fs) < 0) return Rc(-1);
  char text[80];
  std::snprintf(text, sizeof text, "type=0x%lx bsize=%ld", static_cast<unsigned long>(fs.f_type),
                static_cast<long>(fs.f_bsize));
  return text;
}

// A watch on `path` with `mask`, and whether creating `made` in the
// fixture then reports its name (the fixture's directory is watched).
std::string Watch(const char* path, std::uint32_t mask, const char* made = nullptr) {
  int inotify = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  long wd = ::syscall(SYS_inotify_add_watch, inotify, path, mask);
  std::string out = wd < 0 ? Rc(-1) : "watched";
  if (wd >= 0 && made != nullptr) {
    ::close(::open(made, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
    alignas(inotify_event) char buffer[sizeof(inotify_event) + 256];
    ssize_t n = ::read(inotify, buffer, sizeof buffer);
    const auto* event = reinterpret_cast<const inotify_event*>(buffer);
    out +=
        n > 0 && (event->mask & IN_CREATE) ? std::string(" created ") + event->name : " no event";
    ::unlink(made);
  }
  ::close(inotify);
  return out;
}

}  // namespace

std::vector<Case> StatCases() {
  return {
      {"stat-fixture", [] { return MakeFixture("stat"); }},
      {"stat-file", [] { return Stat(SYS_stat, "file"); }},
      {"stat-dir", [] { return Stat(SYS_stat, "dir"); }},
      {"stat-symlink", [] { return Stat(SYS_stat, "link"); }},
      {"stat-dirlink", [] { return Stat(SYS_stat, "dirlink"); }},
      {"stat-dangling", [] { return Stat(SYS_stat, "dangling"); }},
      {"stat-enoent", [] { return Stat(SYS_stat, "missing"); }},
      {"stat-enotdir", [] { return Stat(SYS_stat, "file/x"); }},
      {"stat-trailing-slash-file", [] { return Stat(SYS_stat, "file/"); }},
      {"stat-trailing-slash-dirlink", [] { return Stat(SYS_lstat, "dirlink/"); }},
      {"stat-dotdot", [] { return Stat(SYS_stat, "dir/../file"); }},
      {"stat-root", [] { return Stat(SYS_stat, "/"); }},
      {"statfs-file", [] { return Statfs("file"); }},
      {"statfs-enoent", [] { return Statfs("missing"); }},
      {"statfs-efault", [] { return Rc(::syscall(SYS_statfs, kBadPointer, nullptr)); }},
      {"inotify-watch-dir", [] { return Watch(".", IN_CREATE, "watched-new"); }},
      {"inotify-watch-enoent", [] { return Watch("missing", IN_MODIFY); }},
      {"inotify-watch-onlydir-file", [] { return Watch("file", IN_MODIFY | IN_ONLYDIR); }},
      {"inotify-watch-dont-follow-link", [] { return Watch("link", IN_MODIFY | IN_DONT_FOLLOW); }},
      {"inotify-watch-no-events", [] { return Watch("file", 0); }},
      {"stat-root-dotdot", [] { return Stat(SYS_stat, "/.."); }},
      {"stat-dev-null", [] { return Stat(SYS_stat, "/dev/null"); }},
      {"stat-empty-path", [] { return Stat(SYS_stat, ""); }},
      {"stat-path-too-long", [] { return Stat(SYS_stat, PathTooLong()); }},
      {"stat-name-too-long", [] { return Stat(SYS_stat, NameTooLong()); }},
      {"stat-efault-path", [] { return Stat(SYS_stat, static_cast<const char*>(kBadPointer)); }},
      {"stat-efault-buffer", [] { return Rc(::syscall(SYS_stat, "file", kBadPointer)); }},
      {"lstat-file", [] { return Stat(SYS_lstat, "file"); }},
      {"lstat-symlink", [] { return Stat(SYS_lstat, "link"); }},
      {"lstat-dangling", [] { return Stat(SYS_lstat, "dangling"); }},
      {"lstat-enoent", [] { return Stat(SYS_lstat, "missing"); }},
      {"newfstatat-cwd", [] { return Fstatat(AT_FDCWD, "link", 0); }},
      {"newfstatat-nofollow", [] { return Fstatat(AT_FDCWD, "link", AT_SYMLINK_NOFOLLOW); }},
      {"newfstatat-nofollow-dangling",
       [] { return Fstatat(AT_FDCWD, "dangling", AT_SYMLINK_NOFOLLOW); }},
      {"newfstatat-dirfd",
       [] {
         return WithFd("dir", O_RDONLY | O_DIRECTORY, [](int fd) {
           return Fstatat(fd, "inner", 0) + " / " + Fstatat(fd, "..", 0);
         });
       }},
      {"newfstatat-dirfd-is-file",
       [] { return WithFd("file", O_RDONLY, [](int fd) { return Fstatat(fd, "x", 0); }); }},
      {"newfstatat-bad-dirfd", [] { return Fstatat(9999, "file", 0); }},
      {"newfstatat-empty-path",
       [] {
         return WithFd("file", O_RDONLY, [](int fd) { return Fstatat(fd, "", AT_EMPTY_PATH); });
       }},
      {"newfstatat-empty-path-opath-link",
       [] {
         return WithFd("link", O_PATH | O_NOFOLLOW,
                       [](int fd) { return Fstatat(fd, "", AT_EMPTY_PATH); });
       }},
      {"newfstatat-empty-path-no-flag",
       [] { return WithFd("file", O_RDONLY, [](int fd) { return Fstatat(fd, "", 0); }); }},
      {"newfstatat-empty-path-cwd", [] { return Fstatat(AT_FDCWD, "", AT_EMPTY_PATH); }},
      {"newfstatat-bad-flags", [] { return Fstatat(AT_FDCWD, "file", 0x1); }},
      {"statx-file", [] { return Statx(AT_FDCWD, "file", 0); }},
      {"statx-symlink", [] { return Statx(AT_FDCWD, "link", 0); }},
      {"statx-nofollow", [] { return Statx(AT_FDCWD, "link", AT_SYMLINK_NOFOLLOW); }},
      {"statx-dir", [] { return Statx(AT_FDCWD, "dir", 0); }},
      {"statx-dev-null", [] { return Statx(AT_FDCWD, "/dev/null", 0); }},
      {"statx-enoent", [] { return Statx(AT_FDCWD, "missing", 0); }},
      {"statx-empty-path",
       [] {
         return WithFd("file", O_RDONLY, [](int fd) { return Statx(fd, "", AT_EMPTY_PATH); });
       }},
      {"statx-dirfd",
       [] {
         return WithFd("dir", O_RDONLY | O_DIRECTORY, [](int fd) { return Statx(fd, "inner", 0); });
       }},
      {"statx-bad-flags", [] { return Statx(AT_FDCWD, "file", 0x1); }},
      {"statx-efault-buffer",
       [] {
         return Rc(::syscall(SYS_statx, AT_FDCWD, "file", 0, STATX_BASIC_STATS, kBadPointer));
       }},
      {"readlink-symlink", [] { return Readlink("link", 256); }},
      {"readlink-dangling", [] { return Readlink("dangling", 256); }},
      {"readlink-short-buffer", [] { return Readlink("dangling", 3); }},
      {"readlink-zero-buffer", [] { return Readlink("link", 0); }},
      {"readlink-file", [] { return Readlink("file", 256); }},
      {"readlink-enoent", [] { return Readlink("missing", 256); }},
      {"readlink-trailing-slash", [] { return Readlink("link/", 256); }},
      {"readlink-through-dirlink", [] { return Readlink("dirlink/../link", 256); }},
      {"readlink-efault-buffer",
       [] { return Rc(::syscall(SYS_readlink, "link", kBadPointer, 64)); }},
      {"readlink-proc-self-exe", [] { return Readlink("/proc/self/exe", 256); }},
      {"readlink-proc-self", [] { return Readlink("/proc/self", 256); }},
      {"readlink-proc-thread-self", [] { return Readlink("/proc/thread-self", 256); }},
      {"readlink-proc-self-double-slash", [] { return Readlink("//proc//self", 256); }},
      {"readlink-proc-self-trailing-slash", [] { return Readlink("/proc/self/", 256); }},
      {"lstat-proc-self", [] { return Stat(SYS_lstat, "/proc/self"); }},
      {"stat-proc-self-exe",
       [] {
         // Its size changes with every build of the suite: type and mode only.
         struct stat st;
         if (::syscall(SYS_stat, "/proc/self/exe", &st) < 0) return Rc(-1);
         char text[32];
         std::snprintf(text, sizeof text, "mode=0%o", st.st_mode);
         return std::string(text);
       }},
      {"stat-proc-self-cwd", [] { return Stat(SYS_stat, "/proc/self/cwd"); }},
      {"stat-proc-self-root", [] { return Stat(SYS_stat, "/proc/self/root"); }},
      {"lstat-proc-self-cwd", [] { return Stat(SYS_lstat, "/proc/self/cwd"); }},
      {"stat-proc-self-cwd-file", [] { return Stat(SYS_stat, "/proc/self/cwd/file"); }},
      {"stat-proc-thread-self-root-file",
       [] { return Stat(SYS_stat, "/proc/thread-self/root/tmp/suite/stat/file"); }},
      {"stat-proc-self-exe-beyond", [] { return Stat(SYS_stat, "/proc/self/exe/x"); }},
      {"stat-symlink-loop",
       [] {
         if (::syscall(SYS_symlink, "self-loop", "self-loop") < 0) return "setup " + Rc(-1);
         return Line({Stat(SYS_stat, "self-loop"), "lstat", Stat(SYS_lstat, "self-loop")});
       }},
      {"readlink-proc-self-cwd", [] { return Readlink("/proc/self/cwd", 256); }},
      {"readlink-proc-self-fd",
       [] {
         return WithFd("file", O_RDONLY, [](int fd) {
           return Readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), 256);
         });
       }},
      {"readlinkat-dirfd",
       [] {
         return WithFd(".", O_RDONLY | O_DIRECTORY,
                       [](int fd) { return Readlinkat(fd, "link", 256); });
       }},
      {"readlinkat-empty-path",
       [] {
         return WithFd("link", O_PATH | O_NOFOLLOW, [](int fd) { return Readlinkat(fd, "", 256); });
       }},
      {"readlinkat-empty-path-file",
       [] { return WithFd("file", O_PATH, [](int fd) { return Readlinkat(fd, "", 256); }); }},
      {"readlinkat-short-buffer", [] { return Readlinkat(AT_FDCWD, "link", 2); }},
  };
}

}  // namespace vigil::syscall_suite
