// The caller's limits and creation context hold for calls the sentry makes
// on its behalf: RLIMIT_FSIZE (EFBIG and SIGXFSZ), RLIMIT_NOFILE (EMFILE),
// the umask, the fsuid/fsgid and supplementary groups a new file takes, and
// O_NOATIME's ownership rule.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// With RLIMIT_FSIZE at 10 bytes and SIGXFSZ blocked: `call`'s result and
// whether SIGXFSZ is pending after it.
template <typename Call>
std::string UnderFileSizeLimit(Call call) {
  return InChild([&] {
    sigset_t xfsz;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    ::sigprocmask(SIG_BLOCK, &xfsz, nullptr);
    rlimit limit{10, 10};
    if (::setrlimit(RLIMIT_FSIZE, &limit) < 0) return "setrlimit " + Rc(-1);
    std::string text = call();
    sigset_t pending;
    ::sigpending(&pending);
    return text + (sigismember(&pending, SIGXFSZ) ? " SIGXFSZ" : " no-signal");
  });
}

// The lowest descriptor number not in use.
int LowestFree() {
  int fd = ::dup(0);
  if (fd >= 0) ::close(fd);
  return fd;
}

// The owner and mode of `path` once `make` made it, then removes it.
template <typename Make>
std::string Made(const char* path, Make make) {
  std::string text = Rc(make());  // before lstat can change errno
  struct stat st {};
  if (::lstat(path, &st) == 0) {
    text += " uid=" + std::to_string(st.st_uid) + " gid=" + std::to_string(st.st_gid) + " mode=0" +
            std::to_string((st.st_mode & 07777) / 64) + std::to_string((st.st_mode & 077) / 8) +
            std::to_string(st.st_mode & 07);
  }
  ::unlink(path);
  ::rmdir(path);
  return text;
}

}  // namespace

std::vector<Case> LimitCases() {
  return {
      {"limit-fixture", [] { return MakeFixture("limit"); }},
      // RLIMIT_FSIZE
      {"fsize-truncate-beyond",
       [] { return UnderFileSizeLimit([] { return Rc(::syscall(SYS_truncate, "file", 100)); }); }},
      {"fsize-truncate-within",
       [] { return UnderFileSizeLimit([] { return Rc(::syscall(SYS_truncate, "file", 6)); }); }},
      {"fsize-ftruncate-beyond",
       [] {
         return UnderFileSizeLimit([] {
           return WithFd("file", O_WRONLY,
                         [](int fd) { return Rc(::syscall(SYS_ftruncate, fd, 100)); });
         });
       }},
      {"fsize-write-beyond",
       [] {
         return UnderFileSizeLimit([] {
           return WithFd("new-big", O_WRONLY | O_CREAT | O_TRUNC, [](int fd) {
             const char data[20] = "0123456789abcdefghi";
             std::string first = Rc(::write(fd, data, sizeof data));
             return first + " " + Rc(::write(fd, data, sizeof data));
           });
         });
       }},
      {"fsize-open-trunc-empty",
       [] {
         return UnderFileSizeLimit(
             [] { return Fd(::syscall(SYS_open, "new-big", O_WRONLY | O_TRUNC)); });
       }},
      // RLIMIT_NOFILE: every descriptor below the limit in use.
      {"nofile-open-at-the-limit",
       [] {
         return InChild([] {
           rlimit limit{static_cast<rlim_t>(LowestFree()), 1024};
           if (::setrlimit(RLIMIT_NOFILE, &limit) < 0) return "setrlimit " + Rc(-1);
           return Rc(::syscall(SYS_openat, AT_FDCWD, "file", O_RDONLY));
         });
       }},
      {"nofile-creat-at-the-limit",
       [] {
         return InChild([] {
           rlimit limit{static_cast<rlim_t>(LowestFree()), 1024};
           if (::setrlimit(RLIMIT_NOFILE, &limit) < 0) return "setrlimit " + Rc(-1);
           std::string text = Rc(::syscall(SYS_creat, "nofile-new", 0644));
           return text + " " + LstatOf("nofile-new");
         });
       }},
      // The umask, and O_TMPFILE-free creation under another mask.
      {"umask-077-open-creat",
       [] {
         return InChild([] {
           ::umask(077);
           return Made("u-file", [] {
             long fd = ::syscall(SYS_openat, AT_FDCWD, "u-file", O_CREAT | O_WRONLY, 0666);
             if (fd >= 0) ::close(static_cast<int>(fd));
             return fd < 0 ? fd : 0L;
           });
         });
       }},
      {"umask-027-mkdir",
       [] {
         return InChild([] {
           ::umask(027);
           return Made("u-dir", [] { return ::syscall(SYS_mkdir, "u-dir", 0777); });
         });
       }},
      {"umask-0-mknod-fifo",
       [] {
         return InChild([] {
           ::umask(0);
           return Made("u-fifo", [] { return ::syscall(SYS_mknod, "u-fifo", S_IFIFO | 0666, 0); });
         });
       }},
      // The owner a new file takes: fsuid/fsgid, not the real or effective ids.
      {"fsuid-creat",
       [] {
         return InChild([] {
           ::setfsgid(2345);
           ::setfsuid(1234);
           return Made("fs-file",
                       [] { return ::syscall(SYS_mknod, "fs-file", S_IFREG | 0644, 0); });
         });
       }},
      {"fsuid-mkdir",
       [] {
         return InChild([] {
           ::setfsgid(2345);
           ::setfsuid(1234);
           return Made("fs-dir", [] { return ::syscall(SYS_mkdir, "fs-dir", 0755); });
         });
       }},
      // A supplementary group opens a group-only directory.
      {"groups-supplementary-grant",
       [] {
         if (::mkdir("group-only", 0770) < 0 && errno != EEXIST) return "mkdir " + Rc(-1);
         if (::chown("group-only", 0, 4321) < 0) return "chown " + Rc(-1);
         return InChild([] {
           gid_t groups[] = {4321};
           if (::setgroups(1, groups) < 0 || ::setresgid(1000, 1000, 1000) < 0 ||
               ::setresuid(1000, 1000, 1000) < 0) {
             return "drop " + Rc(-1);
           }
           return Made("group-only/mine",
                       [] { return ::syscall(SYS_mknod, "group-only/mine", S_IFREG | 0600, 0); });
         });
       }},
      {"groups-none-refused",
       [] {
         return AsUser(1000, 1000, 1000, [] {
           return Rc(::syscall(SYS_mknod, "group-only/other", S_IFREG | 0600, 0));
         });
       }},
      // O_NOATIME only for the file's owner (or CAP_FOWNER).
      {"noatime-owner-root", [] { return Fd(::syscall(SYS_open, "file", O_RDONLY | O_NOATIME)); }},
      {"noatime-not-owner",
       [] {
         return AsUser(1000, 1000, 1000,
                       [] { return Fd(::syscall(SYS_open, "file", O_RDONLY | O_NOATIME)); });
       }},
      {"largefile-flag", [] { return Fd(::syscall(SYS_open, "file", O_RDONLY | O_LARGEFILE)); }},
  };
}

}  // namespace vigil::syscall_suite
