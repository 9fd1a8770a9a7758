// The calls that add, remove or move names: mkdir, mknod, symlink, unlink,
// rmdir, rename, link and their *at forms.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// Runs `body(fd)` with a descriptor on the directory `path`.
template <typename Body>
std::string InDir(const char* path, Body body) {
  int fd =
      static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd < 0) return "open " + Rc(-1);
  std::string text = body(fd);
  ::close(fd);
  return text;
}

// A call's result and then what `path` is afterwards.
std::string Then(long rc, const char* path) { return Line({Rc(rc), LstatOf(path)}); }

long Mknod(const char* path, mode_t mode, dev_t dev = 0) {
  return ::syscall(SYS_mknod, path, mode, dev);
}

}  // namespace

std::vector<Case> NameCases() {
  return {
      {"names-fixture", [] { return MakeFixture("names"); }},
      // mkdir, mkdirat
      {"mkdir-new", [] { return Then(::syscall(SYS_mkdir, "made", 0777), "made"); }},
      {"mkdir-existing", [] { return Rc(::syscall(SYS_mkdir, "dir", 0755)); }},
      {"mkdir-over-file", [] { return Rc(::syscall(SYS_mkdir, "file", 0755)); }},
      {"mkdir-dangling", [] { return Rc(::syscall(SYS_mkdir, "dangling", 0755)); }},
      {"mkdir-enoent", [] { return Rc(::syscall(SYS_mkdir, "nodir/x", 0755)); }},
      {"mkdir-enotdir", [] { return Rc(::syscall(SYS_mkdir, "file/x", 0755)); }},
      {"mkdir-trailing-slash",
       [] { return Then(::syscall(SYS_mkdir, "slashed/", 0700), "slashed"); }},
      {"mkdir-dotdot", [] { return Then(::syscall(SYS_mkdir, "dir/../dotted", 0750), "dotted"); }},
      {"mkdir-read-only-root", [] { return Rc(::syscall(SYS_mkdir, "/newdir", 0755)); }},
      {"mkdir-name-too-long", [] { return Rc(::syscall(SYS_mkdir, NameTooLong(), 0755)); }},
      {"mkdir-efault", [] { return Rc(::syscall(SYS_mkdir, kBadPointer, 0755)); }},
      {"mkdir-sticky-bits", [] { return Then(::syscall(SYS_mkdir, "sticky", 01777), "sticky"); }},
      {"mkdirat-dirfd",
       [] {
         return Line(
             {InDir("dir", [](int fd) { return Rc(::syscall(SYS_mkdirat, fd, "sub", 0755)); }),
              LstatOf("dir/sub")});
       }},
      {"mkdirat-bad-dirfd", [] { return Rc(::syscall(SYS_mkdirat, 9999, "x", 0755)); }},
      {"mkdir-unprivileged",
       [] {
         return AsUser(1000, 1000, 1000, [] { return Rc(::syscall(SYS_mkdir, "user-dir", 0755)); });
       }},
      // mknod, mknodat
      {"mknod-fifo", [] { return Then(Mknod("fifo", S_IFIFO | 0666), "fifo"); }},
      {"mknod-socket", [] { return Then(Mknod("sock", S_IFSOCK | 0644), "sock"); }},
      {"mknod-regular", [] { return Then(Mknod("regular", S_IFREG | 0600), "regular"); }},
      {"mknod-default-type", [] { return Then(Mknod("plain", 0640), "plain"); }},
      {"mknod-existing", [] { return Rc(Mknod("file", S_IFIFO | 0644)); }},
      {"mknod-directory-type", [] { return Rc(Mknod("as-dir", S_IFDIR | 0755)); }},
      {"mknod-enoent", [] { return Rc(Mknod("nodir/fifo", S_IFIFO | 0644)); }},
      {"mknod-read-only-root", [] { return Rc(Mknod("/fifo", S_IFIFO | 0644)); }},
      {"mknod-char-device", [] { return Rc(Mknod("null", S_IFCHR | 0666, makedev(1, 3))); }},
      {"mknod-block-device", [] { return Rc(Mknod("blk", S_IFBLK | 0600, makedev(7, 0))); }},
      {"mknodat-fifo",
       [] {
         return Line({InDir("dir",
                            [](int fd) {
                              return Rc(::syscall(SYS_mknodat, fd, "fifo", S_IFIFO | 0600, 0));
                            }),
                      LstatOf("dir/fifo")});
       }},
      // symlink, symlinkat
      {"symlink-new", [] { return Then(::syscall(SYS_symlink, "file", "sym"), "sym"); }},
      {"symlink-existing", [] { return Rc(::syscall(SYS_symlink, "file", "link")); }},
      {"symlink-dangling-target",
       [] { return Then(::syscall(SYS_symlink, "/nowhere", "nowhere"), "nowhere"); }},
      {"symlink-empty-target", [] { return Rc(::syscall(SYS_symlink, "", "empty")); }},
      {"symlink-enoent", [] { return Rc(::syscall(SYS_symlink, "file", "nodir/sym")); }},
      {"symlink-through-dangling", [] { return Rc(::syscall(SYS_symlink, "file", "dangling")); }},
      {"symlink-read-only-root", [] { return Rc(::syscall(SYS_symlink, "x", "/sym")); }},
      {"symlink-trailing-slash", [] { return Rc(::syscall(SYS_symlink, "file", "slashsym/")); }},
      {"symlinkat-dirfd",
       [] {
         return Line(
             {InDir("dir", [](int fd) { return Rc(::syscall(SYS_symlinkat, "inner", fd, "sym")); }),
              ContentOf("dir/sym")});
       }},
      // unlink, unlinkat, rmdir
      {"unlink-file", [] { return Then(::syscall(SYS_unlink, "plain"), "plain"); }},
      {"unlink-symlink-keeps-target",
       [] {
         return Line({Then(::syscall(SYS_unlink, "sym"), "sym"), "target", LstatOf("file")});
       }},
      {"unlink-enoent", [] { return Rc(::syscall(SYS_unlink, "missing")); }},
      {"unlink-dir", [] { return Rc(::syscall(SYS_unlink, "dir")); }},
      {"unlink-trailing-slash", [] { return Rc(::syscall(SYS_unlink, "file/")); }},
      {"unlink-read-only-root", [] { return Rc(::syscall(SYS_unlink, kOnlyInTheContainer)); }},
      {"unlinkat-removedir-empty",
       [] { return Then(::syscall(SYS_unlinkat, AT_FDCWD, "slashed", AT_REMOVEDIR), "slashed"); }},
      {"unlinkat-removedir-nonempty",
       [] { return Rc(::syscall(SYS_unlinkat, AT_FDCWD, "dir", AT_REMOVEDIR)); }},
      {"unlinkat-removedir-file",
       [] { return Rc(::syscall(SYS_unlinkat, AT_FDCWD, "file", AT_REMOVEDIR)); }},
      {"unlinkat-dirfd",
       [] {
         return Line(
             {InDir("dir", [](int fd) { return Rc(::syscall(SYS_unlinkat, fd, "fifo", 0)); }),
              LstatOf("dir/fifo")});
       }},
      {"unlinkat-bad-flags", [] { return Rc(::syscall(SYS_unlinkat, AT_FDCWD, "file", 0x1)); }},
      {"rmdir-empty", [] { return Then(::syscall(SYS_rmdir, "dotted"), "dotted"); }},
      {"rmdir-nonempty", [] { return Rc(::syscall(SYS_rmdir, "dir")); }},
      {"rmdir-file", [] { return Rc(::syscall(SYS_rmdir, "file")); }},
      {"rmdir-dot", [] { return Rc(::syscall(SYS_rmdir, "dir/.")); }},
      {"rmdir-dotdot", [] { return Rc(::syscall(SYS_rmdir, "dir/..")); }},
      {"rmdir-dirlink", [] { return Rc(::syscall(SYS_rmdir, "dirlink")); }},
      {"rmdir-enoent", [] { return Rc(::syscall(SYS_rmdir, "missing")); }},
      {"unlink-unprivileged-sticky",
       [] {
         // /tmp is sticky: a user may not remove root's file there, even in
         // a directory it could write.
         return AsUser(1000, 1000, 1000,
                       [] { return Rc(::syscall(SYS_unlink, "/tmp/suite/names/file")); });
       }},
      // rename, renameat, renameat2
      {"rename-file",
       [] {
         std::string text = Rc(::syscall(SYS_rename, "regular", "renamed"));
         return Line({text, "old", LstatOf("regular"), "new", LstatOf("renamed")});
       }},
      {"rename-over-file",
       [] { return Then(::syscall(SYS_rename, "renamed", "secret"), "secret"); }},
      {"rename-enoent", [] { return Rc(::syscall(SYS_rename, "missing", "x")); }},
      {"rename-file-over-dir", [] { return Rc(::syscall(SYS_rename, "file", "dir")); }},
      {"rename-dir-over-file", [] { return Rc(::syscall(SYS_rename, "dir", "file")); }},
      {"rename-dir-over-nonempty", [] { return Rc(::syscall(SYS_rename, "made", "dir")); }},
      {"rename-dir-over-empty-dir",
       [] { return Then(::syscall(SYS_rename, "made", "sticky"), "sticky"); }},
      {"rename-dir-into-itself", [] { return Rc(::syscall(SYS_rename, "dir", "dir/sub/x")); }},
      {"rename-same-file", [] { return Rc(::syscall(SYS_rename, "file", "file")); }},
      {"rename-symlink-not-target",
       [] { return Then(::syscall(SYS_rename, "nowhere", "moved-link"), "moved-link"); }},
      {"rename-across-mounts", [] { return Rc(::syscall(SYS_rename, "file", "/dev/shm/file")); }},
      {"rename-to-read-only-root", [] { return Rc(::syscall(SYS_rename, "file", "/file")); }},
      {"rename-trailing-slash-file", [] { return Rc(::syscall(SYS_rename, "file/", "x")); }},
      {"rename-dot", [] { return Rc(::syscall(SYS_rename, ".", "x")); }},
      {"renameat-dirfds",
       [] {
         return Line({InDir("dir",
                            [](int fd) {
                              return Rc(::syscall(SYS_renameat, fd, "inner", AT_FDCWD, "outer"));
                            }),
                      ContentOf("outer")});
       }},
      {"renameat2-noreplace-existing",
       [] {
         return Line(
             {Rc(::syscall(SYS_renameat2, AT_FDCWD, "outer", AT_FDCWD, "file", RENAME_NOREPLACE)),
              ContentOf("file")});
       }},
      {"renameat2-noreplace-new",
       [] {
         return Line({Rc(::syscall(SYS_renameat2, AT_FDCWD, "outer", AT_FDCWD, "dir/inner",
                                   RENAME_NOREPLACE)),
                      ContentOf("dir/inner")});
       }},
      {"renameat2-exchange",
       [] {
         std::string text =
             Rc(::syscall(SYS_renameat2, AT_FDCWD, "file", AT_FDCWD, "dir/inner", RENAME_EXCHANGE));
         return Line({text, "file=", ContentOf("file"), "inner=", ContentOf("dir/inner")});
       }},
      {"renameat2-exchange-dir-and-file",
       [] {
         std::string text =
             Rc(::syscall(SYS_renameat2, AT_FDCWD, "sticky", AT_FDCWD, "exec", RENAME_EXCHANGE));
         return Line({text, "sticky", LstatOf("sticky"), "exec", LstatOf("exec")});
       }},
      {"renameat2-exchange-missing",
       [] {
         return Rc(
             ::syscall(SYS_renameat2, AT_FDCWD, "file", AT_FDCWD, "missing", RENAME_EXCHANGE));
       }},
      {"renameat2-both-flags",
       [] {
         return Rc(::syscall(SYS_renameat2, AT_FDCWD, "file", AT_FDCWD, "secret",
                             RENAME_EXCHANGE | RENAME_NOREPLACE));
       }},
      {"renameat2-bad-flags",
       [] { return Rc(::syscall(SYS_renameat2, AT_FDCWD, "file", AT_FDCWD, "x", 0x80)); }},
      // link, linkat
      {"link-file",
       [] {
         return Line({Then(::syscall(SYS_link, "file", "hard"), "hard"), "file", LstatOf("file")});
       }},
      {"link-existing", [] { return Rc(::syscall(SYS_link, "file", "secret")); }},
      {"link-dir", [] { return Rc(::syscall(SYS_link, "dir", "dir2")); }},
      {"link-enoent", [] { return Rc(::syscall(SYS_link, "missing", "x")); }},
      {"link-symlink-itself", [] { return Then(::syscall(SYS_link, "link", "link2"), "link2"); }},
      {"link-across-mounts", [] { return Rc(::syscall(SYS_link, "file", "/dev/shm/x")); }},
      {"link-trailing-slash", [] { return Rc(::syscall(SYS_link, "file", "newlink/")); }},
      {"linkat-follow",
       [] {
         return Then(
             ::syscall(SYS_linkat, AT_FDCWD, "link", AT_FDCWD, "followed", AT_SYMLINK_FOLLOW),
             "followed");
       }},
      {"linkat-follow-dangling",
       [] {
         return Rc(::syscall(SYS_linkat, AT_FDCWD, "dangling", AT_FDCWD, "x", AT_SYMLINK_FOLLOW));
       }},
      {"linkat-dirfds",
       [] {
         return Line({InDir("dir",
                            [](int fd) {
                              return Rc(::syscall(SYS_linkat, AT_FDCWD, "file", fd, "linked", 0));
                            }),
                      LstatOf("dir/linked")});
       }},
      {"linkat-empty-path",
       [] {
         int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "file", O_RDONLY | O_CLOEXEC));
         std::string text = Rc(::syscall(SYS_linkat, fd, "", AT_FDCWD, "by-fd", AT_EMPTY_PATH));
         ::close(fd);
         return text + " " + LstatOf("by-fd");
       }},
      {"linkat-bad-flags",
       [] { return Rc(::syscall(SYS_linkat, AT_FDCWD, "file", AT_FDCWD, "x", 0x1)); }},
  };
}

}  // namespace vigil::syscall_suite
