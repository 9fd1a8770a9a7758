// Extended attributes (user.* on the container's tmpfs /tmp) in their path,
// l and f forms, and directory listings with getdents and getdents64.
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// A value or a name list as read: "N text", NULs shown as ','.
std::string Read(long n, const char* buffer) {
  if (n < 0) return Rc(n);
  std::string text(buffer, static_cast<std::size_t>(n));
  std::replace(text.begin(), text.end(), '\0', ',');
  return std::to_string(n) + " " + text;
}

std::string Get(int nr, const char* path, const char* name, std::size_t size = 64) {
  char buffer[64];
  return Read(::syscall(nr, path, name, buffer, size), buffer);
}

std::string List(int nr, const char* path, std::size_t size = 64) {
  char buffer[64];
  return Read(::syscall(nr, path, buffer, size), buffer);
}

long Set(int nr, const char* path, const char* name, const char* value, int flags = 0) {
  return ::syscall(nr, path, name, value, std::strlen(value), flags);
}

// The names and types getdents64 (or getdents) returns for `path`, sorted.
std::string Listing(const char* path, bool legacy) {
  int fd =
      static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd < 0) return "open " + Rc(-1);
  std::vector<std::string> names;
  alignas(8) char buffer[512];  // small: several calls are needed
  for (;;) {
    long n = ::syscall(legacy ? SYS_getdents : SYS_getdents64, fd, buffer, sizeof buffer);
    if (n < 0) {
      std::string error = Rc(n);
      ::close(fd);
      return error;
    }
    if (n == 0) break;
    for (long at = 0; at < n;) {
      if (legacy) {
        // linux_dirent: ino, off, reclen, name, then the type in the last byte.
        struct Legacy {
          unsigned long ino;
          unsigned long off;
          unsigned short reclen;
          char name[1];
        };
        auto* d = reinterpret_cast<Legacy*>(buffer + at);
        names.push_back(std::string(d->name) + ":" +
                        std::to_string(static_cast<int>(buffer[at + d->reclen - 1])));
        at += d->reclen;
      } else {
        auto* d = reinterpret_cast<dirent64*>(buffer + at);
        names.push_back(std::string(d->d_name) + ":" + std::to_string(d->d_type));
        at += d->d_reclen;
      }
    }
  }
  ::close(fd);
  std::sort(names.begin(), names.end());
  std::string text = std::to_string(names.size());
  for (const std::string& name : names) text += " " + name;
  return text;
}

}  // namespace

std::vector<Case> XattrCases() {
  return {
      {"xattr-fixture", [] { return MakeFixture("xattr"); }},
      {"setxattr-new", [] { return Rc(Set(SYS_setxattr, "file", "user.a", "alpha")); }},
      {"getxattr", [] { return Get(SYS_getxattr, "file", "user.a"); }},
      {"getxattr-size-query",
       [] { return Rc(::syscall(SYS_getxattr, "file", "user.a", nullptr, 0)); }},
      {"getxattr-short-buffer", [] { return Get(SYS_getxattr, "file", "user.a", 2); }},
      {"getxattr-missing", [] { return Get(SYS_getxattr, "file", "user.none"); }},
      {"getxattr-through-symlink", [] { return Get(SYS_getxattr, "link", "user.a"); }},
      {"getxattr-enoent", [] { return Get(SYS_getxattr, "missing", "user.a"); }},
      {"getxattr-efault-name",
       [] { return Get(SYS_getxattr, "file", static_cast<const char*>(kBadPointer)); }},
      {"getxattr-empty-name", [] { return Get(SYS_getxattr, "file", ""); }},
      {"setxattr-create-existing",
       [] { return Rc(Set(SYS_setxattr, "file", "user.a", "again", XATTR_CREATE)); }},
      {"setxattr-replace-missing",
       [] { return Rc(Set(SYS_setxattr, "file", "user.b", "beta", XATTR_REPLACE)); }},
      {"setxattr-replace",
       [] {
         return Line({Rc(Set(SYS_setxattr, "file", "user.a", "ALPHA", XATTR_REPLACE)),
                      Get(SYS_getxattr, "file", "user.a")});
       }},
      {"setxattr-second", [] { return Rc(Set(SYS_setxattr, "file", "user.b", "beta")); }},
      {"setxattr-bad-flags", [] { return Rc(Set(SYS_setxattr, "file", "user.c", "x", 0x8)); }},
      {"setxattr-unknown-namespace", [] { return Rc(Set(SYS_setxattr, "file", "bogus.a", "x")); }},
      {"setxattr-trusted-unprivileged",
       [] { return Rc(Set(SYS_setxattr, "file", "trusted.a", "x")); }},
      {"setxattr-read-only-root",
       [] { return Rc(Set(SYS_setxattr, kOnlyInTheContainer, "user.a", "x")); }},
      {"setxattr-dir",
       [] {
         return Line(
             {Rc(Set(SYS_setxattr, "dir", "user.d", "dir")), Get(SYS_getxattr, "dir", "user.d")});
       }},
      {"setxattr-unprivileged",
       [] {
         return AsUser(1000, 1000, 1000,
                       [] { return Rc(Set(SYS_setxattr, "file", "user.u", "x")); });
       }},
      {"getxattr-unprivileged-secret",
       [] {
         if (Set(SYS_setxattr, "secret", "user.s", "s") < 0) return "setup " + Rc(-1);
         return AsUser(1000, 1000, 1000, [] { return Get(SYS_getxattr, "secret", "user.s"); });
       }},
      {"listxattr", [] { return List(SYS_listxattr, "file"); }},
      {"listxattr-size-query", [] { return Rc(::syscall(SYS_listxattr, "file", nullptr, 0)); }},
      {"listxattr-short-buffer", [] { return List(SYS_listxattr, "file", 3); }},
      {"listxattr-none", [] { return List(SYS_listxattr, "exec"); }},
      {"listxattr-through-symlink", [] { return List(SYS_listxattr, "link"); }},
      {"listxattr-enoent", [] { return List(SYS_listxattr, "missing"); }},
      {"lsetxattr-symlink-user", [] { return Rc(Set(SYS_lsetxattr, "link", "user.l", "x")); }},
      {"lgetxattr-symlink", [] { return Get(SYS_lgetxattr, "link", "user.a"); }},
      {"lgetxattr-file", [] { return Get(SYS_lgetxattr, "file", "user.a"); }},
      {"llistxattr-symlink", [] { return List(SYS_llistxattr, "link"); }},
      {"lremovexattr-symlink", [] { return Rc(::syscall(SYS_lremovexattr, "link", "user.a")); }},
      {"fsetxattr",
       [] {
         return Line(
             {WithFd("exec", O_RDONLY,
                     [](int fd) { return Rc(::syscall(SYS_fsetxattr, fd, "user.f", "fd", 2, 0)); }),
              Get(SYS_getxattr, "exec", "user.f")});
       }},
      {"fgetxattr",
       [] {
         return WithFd("exec", O_RDONLY, [](int fd) {
           char buffer[64];
           return Read(::syscall(SYS_fgetxattr, fd, "user.f", buffer, sizeof buffer), buffer);
         });
       }},
      {"flistxattr",
       [] {
         return WithFd("exec", O_RDONLY, [](int fd) {
           char buffer[64];
           return Read(::syscall(SYS_flistxattr, fd, buffer, sizeof buffer), buffer);
         });
       }},
      {"fsetxattr-opath-fd",
       [] {
         return WithFd("exec", O_PATH, [](int fd) {
           return Rc(::syscall(SYS_fsetxattr, fd, "user.p", "p", 1, 0));
         });
       }},
      {"fremovexattr",
       [] {
         return Line({WithFd("exec", O_RDONLY,
                             [](int fd) { return Rc(::syscall(SYS_fremovexattr, fd, "user.f")); }),
                      List(SYS_listxattr, "exec")});
       }},
      {"fremovexattr-missing",
       [] {
         return WithFd("exec", O_RDONLY,
                       [](int fd) { return Rc(::syscall(SYS_fremovexattr, fd, "user.f")); });
       }},
      {"removexattr",
       [] {
         return Line(
             {Rc(::syscall(SYS_removexattr, "file", "user.b")), List(SYS_listxattr, "file")});
       }},
      {"removexattr-missing", [] { return Rc(::syscall(SYS_removexattr, "file", "user.b")); }},
      {"removexattr-through-symlink",
       [] {
         return Line(
             {Rc(::syscall(SYS_removexattr, "link", "user.a")), List(SYS_listxattr, "file")});
       }},
      // getdents64, getdents
      {"getdents-populate",
       [] {
         for (const char* name : {"d/", "d/b", "d/a", "d/c-dir", "d/.hidden"}) {
           std::string path = name;
           long rc = path.back() == '/' || path.ends_with("-dir")
                         ? ::syscall(SYS_mkdir, name, 0755)
                         : ::syscall(SYS_mknod, name, S_IFREG | 0644, 0);
           if (rc < 0) return Line({std::string(name), Rc(rc)});
         }
         if (::syscall(SYS_symlink, "a", "d/link") < 0) return "link " + Rc(-1);
         if (::syscall(SYS_mknod, "d/fifo", S_IFIFO | 0644, 0) < 0) return "fifo " + Rc(-1);
         for (int i = 0; i < 40; ++i) {
           std::string name = "d/many-" + std::to_string(i);
           if (::syscall(SYS_mknod, name.c_str(), S_IFREG | 0644, 0) < 0)
             return name + " " + Rc(-1);
         }
         return std::string("0");
       }},
      {"getdents64", [] { return Listing("d", false); }},
      {"getdents", [] { return Listing("d", true); }},
      {"getdents64-fixture", [] { return Listing(".", false); }},
      {"getdents64-empty", [] { return Listing("d/c-dir", false); }},
      {"getdents64-file",
       [] {
         return WithFd("file", O_RDONLY, [](int fd) {
           alignas(8) char buffer[256];
           return Rc(::syscall(SYS_getdents64, fd, buffer, sizeof buffer));
         });
       }},
      {"getdents64-bad-fd",
       [] {
         alignas(8) char buffer[256];
         return Rc(::syscall(SYS_getdents64, 9999, buffer, sizeof buffer));
       }},
      {"getdents64-tiny-buffer",
       [] {
         return WithFd("d", O_RDONLY | O_DIRECTORY, [](int fd) {
           alignas(8) char buffer[8];
           return Rc(::syscall(SYS_getdents64, fd, buffer, sizeof buffer));
         });
       }},
      {"getdents64-efault",
       [] {
         return WithFd("d", O_RDONLY | O_DIRECTORY,
                       [](int fd) { return Rc(::syscall(SYS_getdents64, fd, kBadPointer, 4096)); });
       }},
  };
}

}  // namespace vigil::syscall_suite
