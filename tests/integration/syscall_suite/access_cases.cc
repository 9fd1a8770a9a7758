// access, faccessat and faccessat2: each mode, as root and as an
// unprivileged user, real and effective ids told apart.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// access(path) with each of F_OK, R_OK, W_OK, X_OK: "F=0 R=0 W=-1 EACCES X=...".
std::string EachMode(const char* path) {
  std::string text;
  for (auto [letter, mode] : {std::pair{"F", F_OK}, {"R", R_OK}, {"W", W_OK}, {"X", X_OK}}) {
    if (!text.empty()) text += ", ";
    text += std::string(letter) + "=" + Rc(::syscall(SYS_access, path, mode));
  }
  return text;
}

long Faccessat2(int dirfd, const char* path, int mode, int flags) {
  return ::syscall(SYS_faccessat2, dirfd, path, mode, flags);
}

}  // namespace

std::vector<Case> AccessCases() {
  return {
      {"access-fixture", [] { return MakeFixture("access"); }},
      {"access-file", [] { return EachMode("file"); }},
      {"access-secret", [] { return EachMode("secret"); }},
      {"access-exec", [] { return EachMode("exec"); }},
      {"access-dir", [] { return EachMode("dir"); }},
      {"access-symlink", [] { return EachMode("link"); }},
      {"access-dangling", [] { return EachMode("dangling"); }},
      {"access-enotdir", [] { return Rc(::syscall(SYS_access, "file/x", F_OK)); }},
      {"access-read-only-root", [] { return EachMode("/bin/busybox"); }},
      {"access-dev-null", [] { return EachMode("/dev/null"); }},
      {"access-bad-mode", [] { return Rc(::syscall(SYS_access, "file", 0x10)); }},
      {"access-path-too-long", [] { return Rc(::syscall(SYS_access, PathTooLong(), F_OK)); }},
      {"access-efault", [] { return Rc(::syscall(SYS_access, kBadPointer, F_OK)); }},
      {"faccessat-dirfd",
       [] {
         int dir = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "dir", O_RDONLY | O_CLOEXEC));
         std::string text = Rc(::syscall(SYS_faccessat, dir, "inner", R_OK | W_OK));
         text += " / " + Rc(::syscall(SYS_faccessat, dir, "../secret", X_OK));
         ::close(dir);
         return text;
       }},
      {"faccessat-bad-dirfd", [] { return Rc(::syscall(SYS_faccessat, 9999, "file", F_OK)); }},
      {"faccessat2-nofollow-dangling",
       [] { return Rc(Faccessat2(AT_FDCWD, "dangling", F_OK, AT_SYMLINK_NOFOLLOW)); }},
      {"faccessat2-follow-dangling", [] { return Rc(Faccessat2(AT_FDCWD, "dangling", F_OK, 0)); }},
      {"faccessat2-eaccess", [] { return Rc(Faccessat2(AT_FDCWD, "file", W_OK, AT_EACCESS)); }},
      {"faccessat2-empty-path",
       [] {
         int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "exec", O_RDONLY | O_CLOEXEC));
         std::string text = Rc(Faccessat2(fd, "", X_OK, AT_EMPTY_PATH));
         text += " / without flag " + Rc(Faccessat2(fd, "", X_OK, 0));
         ::close(fd);
         return text;
       }},
      {"faccessat2-bad-flags", [] { return Rc(Faccessat2(AT_FDCWD, "file", F_OK, 0x1)); }},
      {"access-unprivileged-file",
       [] { return AsUser(1000, 1000, 1000, [] { return EachMode("file"); }); }},
      {"access-unprivileged-secret",
       [] { return AsUser(1000, 1000, 1000, [] { return EachMode("secret"); }); }},
      {"access-unprivileged-exec",
       [] { return AsUser(1000, 1000, 1000, [] { return EachMode("exec"); }); }},
      {"access-unprivileged-dir",
       [] { return AsUser(1000, 1000, 1000, [] { return EachMode("dir"); }); }},
      {"access-unprivileged-through-secret-dir",
       [] {
         if (::syscall(SYS_mkdir, "closed", 0700) < 0) return "mkdir " + Rc(-1);
         return AsUser(1000, 1000, 1000, [] { return EachMode("closed/x"); });
       }},
      // Real uid 1000, effective uid 0: access(2) checks the real ids,
      // AT_EACCESS the effective ones.
      {"access-real-unprivileged",
       [] {
         return AsUser(1000, 0, 1000, [] {
           return Line({"access", Rc(::syscall(SYS_access, "secret", R_OK)), "faccessat",
                        Rc(::syscall(SYS_faccessat, AT_FDCWD, "secret", R_OK)), "faccessat2",
                        Rc(Faccessat2(AT_FDCWD, "secret", R_OK, 0)), "eaccess",
                        Rc(Faccessat2(AT_FDCWD, "secret", R_OK, AT_EACCESS))});
         });
       }},
      {"access-effective-unprivileged",
       [] {
         // setresuid(0, 1000, 1000) would keep ruid 0; the eaccess check
         // must then use uid 1000 and fail.
         return AsUser(0, 1000, 1000, [] {
           return Line({"access", Rc(::syscall(SYS_access, "secret", R_OK)), "eaccess",
                        Rc(Faccessat2(AT_FDCWD, "secret", R_OK, AT_EACCESS))});
         });
       }},
  };
}

}  // namespace vigil::syscall_suite
