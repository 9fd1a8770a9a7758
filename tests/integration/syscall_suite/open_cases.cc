// open, openat, creat: flags, symlinks, relative bases, and
// the errors the kernel gives for each malformed request.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

long Open(const char* path, int flags, mode_t mode = 0) {
  return ::syscall(SYS_open, path, flags | O_CLOEXEC, mode);
}

long Openat(int dirfd, const char* path, int flags, mode_t mode = 0) {
  return ::syscall(SYS_openat, dirfd, path, flags | O_CLOEXEC, mode);
}

}  // namespace

std::vector<Case> OpenCases() {
  return {
      {"open-fixture", [] { return MakeFixture("open"); }},
      {"open-rdonly", [] { return Described(Open("file", O_RDONLY)); }},
      {"open-absolute", [] { return Described(Open("/tmp/suite/open/file", O_RDONLY)); }},
      {"open-enoent", [] { return Rc(Open("missing", O_RDONLY)); }},
      {"open-enoent-parent", [] { return Rc(Open("nodir/file", O_RDONLY)); }},
      {"open-enotdir", [] { return Rc(Open("file/x", O_RDONLY)); }},
      {"open-creat-new", [] { return Described(Open("new", O_CREAT | O_WRONLY, 0666)); }},
      {"open-excl-new",
       [] { return Described(Open("new-excl", O_CREAT | O_EXCL | O_RDWR, 0640)); }},
      {"open-excl-existing", [] { return Rc(Open("file", O_CREAT | O_EXCL | O_WRONLY, 0644)); }},
      {"open-excl-symlink", [] { return Rc(Open("link", O_CREAT | O_EXCL | O_WRONLY, 0644)); }},
      {"open-creat-existing", [] { return Described(Open("file", O_CREAT | O_RDONLY, 0600)); }},
      {"open-directory-on-file", [] { return Rc(Open("file", O_RDONLY | O_DIRECTORY)); }},
      {"open-directory-on-dir", [] { return Described(Open("dir", O_RDONLY | O_DIRECTORY)); }},
      {"open-wronly-dir", [] { return Rc(Open("dir", O_WRONLY)); }},
      {"open-creat-on-dir", [] { return Rc(Open("dir", O_CREAT | O_RDONLY, 0644)); }},
      {"open-creat-directory",
       [] {
         return Line(
             {Rc(Open("newdir", O_CREAT | O_DIRECTORY | O_RDONLY, 0644)), LstatOf("newdir")});
       }},
      {"open-nofollow-symlink", [] { return Rc(Open("link", O_RDONLY | O_NOFOLLOW)); }},
      {"open-nofollow-path-symlink", [] { return Described(Open("link", O_PATH | O_NOFOLLOW)); }},
      {"open-nofollow-parent-symlink",
       [] { return Described(Open("dirlink/inner", O_RDONLY | O_NOFOLLOW)); }},
      {"open-follow-symlink", [] { return Described(Open("link", O_RDONLY)); }},
      {"open-dangling", [] { return Rc(Open("dangling", O_RDONLY)); }},
      {"open-dangling-excl",
       [] { return Rc(Open("dangling", O_CREAT | O_EXCL | O_WRONLY, 0644)); }},
      {"open-dangling-creat",
       [] {
         return Line(
             {Described(Open("dangling", O_CREAT | O_WRONLY, 0644)), "target", LstatOf("missing")});
       }},
      {"open-trailing-slash-file", [] { return Rc(Open("file/", O_RDONLY)); }},
      {"open-trailing-slash-dir", [] { return Described(Open("dir/", O_RDONLY)); }},
      {"open-creat-trailing-slash", [] { return Rc(Open("newdir/", O_CREAT | O_RDONLY, 0644)); }},
      {"open-dotdot", [] { return Described(Open("dir/../file", O_RDONLY)); }},
      {"open-dotdot-above-root",
       [] { return Described(Open("/../../../tmp/suite/open/file", O_RDONLY)); }},
      {"open-dot", [] { return Described(Open(".", O_RDONLY)); }},
      {"open-empty-path", [] { return Rc(Open("", O_RDONLY)); }},
      {"open-path-too-long", [] { return Rc(Open(PathTooLong(), O_RDONLY)); }},
      {"open-name-too-long", [] { return Rc(Open(NameTooLong(), O_RDONLY)); }},
      {"open-efault", [] { return Rc(Open(static_cast<const char*>(kBadPointer), O_RDONLY)); }},
      {"open-trunc",
       [] {
         std::string opened = Described(Open("new", O_WRONLY | O_TRUNC));
         return opened + " after " + LstatOf("new");
       }},
      {"open-creat-read-only-root", [] { return Rc(Open("/etc/new", O_CREAT | O_WRONLY, 0644)); }},
      {"open-write-read-only-root", [] { return Rc(Open(kOnlyInTheContainer, O_WRONLY)); }},
      {"open-read-only-root", [] { return Described(Open("/bin", O_RDONLY | O_DIRECTORY)); }},
      {"open-proc-self-status", [] { return Fd(Open("/proc/self/status", O_RDONLY)); }},
      {"open-dev-null", [] { return Described(Open("/dev/null", O_RDWR)); }},
      {"open-tmpfile", [] { return Described(Open(".", O_TMPFILE | O_RDWR, 0600)); }},
      {"open-invalid-flags", [] { return Rc(Open("file", O_TMPFILE | O_RDONLY, 0600)); }},
      {"openat-dirfd",
       [] {
         int dir = static_cast<int>(Openat(AT_FDCWD, "dir", O_RDONLY | O_DIRECTORY));
         std::string text = Described(Openat(dir, "inner", O_RDONLY));
         text += " / parent " + Described(Openat(dir, "../file", O_RDONLY));
         ::close(dir);
         return text;
       }},
      {"openat-path-dirfd",
       [] {
         int dir = static_cast<int>(Openat(AT_FDCWD, "dir", O_PATH | O_DIRECTORY));
         std::string text = Described(Openat(dir, "inner", O_RDONLY));
         ::close(dir);
         return text;
       }},
      {"openat-dirfd-is-file",
       [] {
         int file = static_cast<int>(Openat(AT_FDCWD, "file", O_RDONLY));
         std::string text = Rc(Openat(file, "x", O_RDONLY));
         ::close(file);
         return text;
       }},
      {"openat-bad-dirfd", [] { return Rc(Openat(9999, "file", O_RDONLY)); }},
      {"openat-absolute-ignores-dirfd",
       [] { return Described(Openat(9999, "/tmp/suite/open/file", O_RDONLY)); }},
      {"openat-creat-in-dirfd",
       [] {
         int dir = static_cast<int>(Openat(AT_FDCWD, "dir", O_RDONLY | O_DIRECTORY));
         std::string text = Described(Openat(dir, "made", O_CREAT | O_EXCL | O_WRONLY, 0600));
         ::close(dir);
         return text + " " + LstatOf("dir/made");
       }},
      {"openat-cwd-after-chdir",
       [] {
         if (::chdir("dir") < 0) return "chdir " + Rc(-1);
         std::string text = Described(Openat(AT_FDCWD, "inner", O_RDONLY));
         text += " / parent " + Described(Openat(AT_FDCWD, "../file", O_RDONLY));
         text += " / missing " + Rc(Openat(AT_FDCWD, "file", O_RDONLY));
         if (::chdir("..") < 0) return "chdir back " + Rc(-1);
         return text;
       }},
      {"creat-new", [] { return Described(::syscall(SYS_creat, "created", 0666)); }},
      {"creat-truncates",
       [] {
         std::string text = Described(::syscall(SYS_creat, "new-excl", 0600));
         return text + " " + LstatOf("new-excl");
       }},
      {"creat-on-dir", [] { return Rc(::syscall(SYS_creat, "dir", 0644)); }},
      {"creat-enoent", [] { return Rc(::syscall(SYS_creat, "nodir/x", 0644)); }},
      {"open-unprivileged-secret",
       [] { return AsUser(1000, 1000, 1000, [] { return Rc(Open("secret", O_RDONLY)); }); }},
      {"open-unprivileged-readable",
       [] { return AsUser(1000, 1000, 1000, [] { return Described(Open("file", O_RDONLY)); }); }},
      {"open-unprivileged-write",
       [] { return AsUser(1000, 1000, 1000, [] { return Rc(Open("file", O_WRONLY)); }); }},
      {"open-unprivileged-creat-in-root-dir",
       [] {
         return AsUser(1000, 1000, 1000,
                       [] { return Rc(Open("by-user", O_CREAT | O_WRONLY, 0644)); });
       }},
      {"open-symlink-loop",
       [] {
         if (::syscall(SYS_symlink, "loop-b", "loop-a") < 0 ||
             ::syscall(SYS_symlink, "loop-a", "loop-b") < 0) {
           return "setup " + Rc(-1);
         }
         return Line(
             {Rc(Open("loop-a", O_RDONLY)), "creat", Rc(Open("loop-a", O_CREAT | O_WRONLY, 0644))});
       }},
      {"open-absolute-symlink",
       [] {
         // Absolute targets are the container's paths, not the host's.
         if (::syscall(SYS_symlink, "/tmp/suite/open/dir/inner", "absolute") < 0) {
           return "setup " + Rc(-1);
         }
         return Described(Open("absolute", O_RDONLY));
       }},
      {"open-symlink-above-root",
       [] {
         if (::syscall(SYS_symlink, "../../../../../../../tmp/suite/open/file", "up") < 0) {
           return "setup " + Rc(-1);
         }
         return Described(Open("up", O_RDONLY));
       }},
      {"open-dangling-creat-absolute",
       [] {
         if (::syscall(SYS_symlink, "/tmp/suite/open/dir/made-absolute", "to-absolute") < 0) {
           return "setup " + Rc(-1);
         }
         std::string opened = Described(Open("to-absolute", O_CREAT | O_WRONLY, 0600));
         return Line({opened, LstatOf("dir/made-absolute")});
       }},
      {"open-dangling-creat-missing-dir",
       [] {
         if (::syscall(SYS_symlink, "nodir/x", "to-nodir") < 0) return "setup " + Rc(-1);
         return Rc(Open("to-nodir", O_CREAT | O_WRONLY, 0600));
       }},
      {"open-own-descriptor",
       [] {
         int fd = static_cast<int>(Open("file", O_RDONLY));
         std::string proc =
             Described(Open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY));
         std::string dev = Described(Open(("/dev/fd/" + std::to_string(fd)).c_str(), O_RDONLY));
         ::close(fd);
         return Line({"proc", proc, "dev", dev});
       }},
      {"open-fifo-nonblocking",
       [] {
         if (::syscall(SYS_mknod, "fifo", S_IFIFO | 0644, 0) < 0) return "setup " + Rc(-1);
         std::string writer = Rc(Open("fifo", O_WRONLY | O_NONBLOCK));
         int reader = static_cast<int>(Open("fifo", O_RDONLY | O_NONBLOCK));
         std::string text = Line({"writer-alone", writer, "reader", reader < 0 ? Rc(reader) : "fd",
                                  "writer", Fd(Open("fifo", O_WRONLY | O_NONBLOCK))});
         if (reader >= 0) ::close(reader);
         return text;
       }},
      // The caller's own magic links lead where natively they do.
      {"open-proc-self-cwd", [] { return Described(Open("/proc/self/cwd/file", O_RDONLY)); }},
      {"open-proc-self-root",
       [] { return Described(Open("/proc/self/root/tmp/suite/open/file", O_RDONLY)); }},
      {"open-proc-self-exe", [] { return Fd(Open("/proc/self/exe", O_RDONLY)); }},
      {"open-proc-self-exe-beyond", [] { return Rc(Open("/proc/self/exe/x", O_RDONLY)); }},
      {"open-proc-self-cwd-creat",
       [] {
         return Line(
             {Fd(Open("/proc/self/cwd/via-cwd", O_CREAT | O_WRONLY, 0600)), LstatOf("via-cwd")});
       }},
      {"open-proc-self-cwd-nofollow",
       [] { return Rc(Open("/proc/self/cwd", O_RDONLY | O_NOFOLLOW)); }},
      {"open-append",
       [] {
         int fd = static_cast<int>(Open("appended", O_CREAT | O_WRONLY | O_APPEND, 0644));
         if (fd < 0) return Rc(fd);
         (void)!::write(fd, "one,", 4);
         ::lseek(fd, 0, SEEK_SET);
         (void)!::write(fd, "two", 3);
         ::close(fd);
         return ContentOf("appended");
       }},
  };
}

}  // namespace vigil::syscall_suite
