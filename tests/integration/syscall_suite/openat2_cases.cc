// openat2: struct open_how at each size the kernel treats differently, the
// flags it refuses where openat drops them, and each RESOLVE_* flag — from
// the working directory (on /tmp's tmpfs, a mount of its own below the
// root) and from a dirfd.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <string>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// The size of open_how's first version (the kernel's OPEN_HOW_SIZE_VER0,
// which the uapi headers do not export).
constexpr std::size_t kSizeVer0 = 24;

// A page-sized open_how: the first version, then zeros as far as a case
// wants them (E2BIG needs a non-zero byte past the first 24).
struct alignas(8) LargeHow {
  open_how how;
  std::array<unsigned char, 4096 - sizeof(open_how)> tail;
};

long Openat2Raw(int dirfd, const char* path, const void* how, std::size_t size) {
  return ::syscall(SYS_openat2, dirfd, path, how, size);
}

long Openat2(int dirfd, const char* path, std::uint64_t flags, std::uint64_t resolve = 0,
             std::uint64_t mode = 0) {
  const open_how how{.flags = flags | O_CLOEXEC, .mode = mode, .resolve = resolve};
  return Openat2Raw(dirfd, path, &how, sizeof how);
}

long Openat2(const char* path, std::uint64_t flags, std::uint64_t resolve = 0) {
  return Openat2(AT_FDCWD, path, flags, resolve);
}

// The result of `size` bytes of a LargeHow asking for O_RDONLY, its byte
// `dirty` (if any) past the first version set.
std::string Sized(std::size_t size, std::size_t dirty = 0) {
  static LargeHow large;
  large = {};
  large.how.flags = O_RDONLY | O_CLOEXEC;
  if (dirty != 0) large.tail[dirty - sizeof(open_how)] = 1;
  return Described(Openat2Raw(AT_FDCWD, "file", &large, size));
}

// With "dir" open as a directory: `body(fd)`'s line.
template <typename Body>
std::string InDir(Body body) {
  return WithFd("dir", O_RDONLY | O_DIRECTORY, body);
}

}  // namespace

std::vector<Case> Openat2Cases() {
  return {
      {"openat2-fixture", [] { return MakeFixture("openat2"); }},
      {"openat2", [] { return Described(Openat2("file", O_RDONLY)); }},
      // The struct's size.
      {"openat2-size-ver0", [] { return Sized(kSizeVer0); }},
      {"openat2-size-larger-zeroed", [] { return Sized(64); }},
      {"openat2-size-page", [] { return Sized(4096); }},
      {"openat2-size-zero", [] { return Sized(0); }},
      {"openat2-size-smaller", [] { return Sized(kSizeVer0 - 1); }},
      {"openat2-size-above-page", [] { return Sized(4097); }},
      {"openat2-size-nonzero-tail", [] { return Sized(64, 40); }},
      {"openat2-size-nonzero-past-size", [] { return Sized(40, 48); }},
      {"openat2-efault-how",
       [] { return Rc(Openat2Raw(AT_FDCWD, "file", kBadPointer, sizeof(open_how))); }},
      {"openat2-efault-path",
       [] { return Rc(Openat2(AT_FDCWD, static_cast<const char*>(kBadPointer), O_RDONLY)); }},
      {"openat2-empty-path", [] { return Rc(Openat2("", O_RDONLY)); }},
      {"openat2-path-too-long", [] { return Rc(Openat2(PathTooLong(), O_RDONLY)); }},
      // Flags openat would drop, or that contradict each other.
      {"openat2-unknown-flag", [] { return Rc(Openat2("file", O_RDONLY | 040)); }},
      {"openat2-flag-above-32", [] { return Rc(Openat2("file", std::uint64_t{1} << 33)); }},
      {"openat2-unknown-resolve", [] { return Rc(Openat2("file", O_RDONLY, 0x40)); }},
      {"openat2-beneath-and-in-root",
       [] { return Rc(Openat2("file", O_RDONLY, RESOLVE_BENEATH | RESOLVE_IN_ROOT)); }},
      {"openat2-mode-without-creat",
       [] { return Rc(Openat2(AT_FDCWD, "file", O_RDONLY, 0, 0644)); }},
      {"openat2-mode-out-of-range",
       [] { return Rc(Openat2(AT_FDCWD, "new", O_CREAT | O_WRONLY, 0, 010644)); }},
      {"openat2-creat-directory",
       [] {
         return Line({Rc(Openat2("newdir", O_CREAT | O_DIRECTORY)), LstatOf("newdir")});
       }},
      {"openat2-tmpfile-rdonly", [] { return Rc(Openat2(".", O_TMPFILE | O_RDONLY)); }},
      {"openat2-path-rdwr", [] { return Rc(Openat2("file", O_PATH | O_RDWR)); }},
      // Opening and creating as openat does.
      {"openat2-creat",
       [] {
         return Line({Described(Openat2(AT_FDCWD, "made", O_CREAT | O_EXCL | O_RDWR, 0, 0640)),
                      LstatOf("made")});
       }},
      {"openat2-excl-existing",
       [] { return Rc(Openat2(AT_FDCWD, "file", O_CREAT | O_EXCL | O_WRONLY, 0, 0644)); }},
      {"openat2-tmpfile",
       [] { return Described(Openat2(AT_FDCWD, ".", O_TMPFILE | O_RDWR, 0, 0600)); }},
      {"openat2-unprivileged-secret",
       [] { return AsUser(1000, 1000, 1000, [] { return Rc(Openat2("secret", O_RDONLY)); }); }},
      // RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS.
      {"openat2-no-symlinks-file",
       [] { return Described(Openat2("file", O_RDONLY, RESOLVE_NO_SYMLINKS)); }},
      {"openat2-no-symlinks-link",
       [] { return Rc(Openat2("link", O_RDONLY, RESOLVE_NO_SYMLINKS)); }},
      {"openat2-no-symlinks-parent",
       [] { return Rc(Openat2("dirlink/inner", O_RDONLY, RESOLVE_NO_SYMLINKS)); }},
      {"openat2-no-symlinks-proc-self",
       [] { return Rc(Openat2("/proc/self/status", O_RDONLY, RESOLVE_NO_SYMLINKS)); }},
      {"openat2-no-symlinks-dangling-creat",
       [] {
         return Line(
             {Rc(Openat2(AT_FDCWD, "dangling", O_CREAT | O_WRONLY, RESOLVE_NO_SYMLINKS, 0644)),
              LstatOf("missing")});
       }},
      {"openat2-no-magiclinks-proc-self",
       [] { return Fd(Openat2("/proc/self/status", O_RDONLY, RESOLVE_NO_MAGICLINKS)); }},
      {"openat2-no-magiclinks-link",
       [] { return Described(Openat2("link", O_RDONLY, RESOLVE_NO_MAGICLINKS)); }},
      {"openat2-own-descriptor",
       [] {
         return WithFd("file", O_RDONLY, [](int fd) {
           const std::string own = "/proc/self/fd/" + std::to_string(fd);
           return Line({"plain", Described(Openat2(own.c_str(), O_RDONLY)), "no-magiclinks",
                        Rc(Openat2(own.c_str(), O_RDONLY, RESOLVE_NO_MAGICLINKS)), "no-symlinks",
                        Rc(Openat2(own.c_str(), O_RDONLY, RESOLVE_NO_SYMLINKS))});
         });
       }},
      // RESOLVE_NO_XDEV: the working directory is on /tmp's tmpfs, so the
      // way to it from the root crosses a mount, and ".." out of it does.
      {"openat2-no-xdev-relative",
       [] { return Described(Openat2("dir/inner", O_RDONLY, RESOLVE_NO_XDEV)); }},
      {"openat2-no-xdev-dotdot-within",
       [] { return Described(Openat2("dir/../file", O_RDONLY, RESOLVE_NO_XDEV)); }},
      {"openat2-no-xdev-dotdot-out",
       [] { return Fd(Openat2("../../../bin/busybox", O_RDONLY, RESOLVE_NO_XDEV)); }},
      {"openat2-no-xdev-absolute",
       [] { return Fd(Openat2("/tmp/suite/openat2/file", O_RDONLY, RESOLVE_NO_XDEV)); }},
      {"openat2-no-xdev-absolute-same-mount",
       [] { return Fd(Openat2("/bin/busybox", O_RDONLY, RESOLVE_NO_XDEV)); }},
      {"openat2-no-xdev-creat",
       [] {
         return Line(
             {Fd(Openat2(AT_FDCWD, "dir/xdev-made", O_CREAT | O_WRONLY, RESOLVE_NO_XDEV, 0600)),
              LstatOf("dir/xdev-made")});
       }},
      // RESOLVE_BENEATH: from a dirfd and from the working directory.
      {"openat2-beneath-dirfd",
       [] {
         return InDir([](int fd) {
           return Line({"inner", Described(Openat2(fd, "inner", O_RDONLY, RESOLVE_BENEATH)),
                        "dot-dot", Rc(Openat2(fd, "../file", O_RDONLY, RESOLVE_BENEATH)),
                        "absolute",
                        Rc(Openat2(fd, "/tmp/suite/openat2/file", O_RDONLY, RESOLVE_BENEATH))});
         });
       }},
      {"openat2-beneath-symlink-out",
       [] {
         if (::syscall(SYS_symlink, "../file", "dir/up") < 0) return "setup " + Rc(-1);
         return InDir([](int fd) { return Rc(Openat2(fd, "up", O_RDONLY, RESOLVE_BENEATH)); });
       }},
      {"openat2-beneath-cwd",
       [] {
         return Line({Described(Openat2("dir/inner", O_RDONLY, RESOLVE_BENEATH)), "out",
                      Rc(Openat2("../openat2/file", O_RDONLY, RESOLVE_BENEATH)), "link",
                      Described(Openat2("link", O_RDONLY, RESOLVE_BENEATH))});
       }},
      {"openat2-beneath-creat",
       [] {
         return InDir([](int fd) {
           return Line({Fd(Openat2(fd, "beneath-made", O_CREAT | O_WRONLY, RESOLVE_BENEATH, 0600)),
                        LstatOf("dir/beneath-made"), "out",
                        Rc(Openat2(fd, "../escaped", O_CREAT | O_WRONLY, RESOLVE_BENEATH, 0600)),
                        LstatOf("escaped")});
         });
       }},
      // RESOLVE_IN_ROOT: the dirfd is the root.
      {"openat2-in-root-dirfd",
       [] {
         if (::syscall(SYS_symlink, "/inner", "dir/absolute") < 0) return "setup " + Rc(-1);
         return InDir([](int fd) {
           return Line({"slash", Described(Openat2(fd, "/inner", O_RDONLY, RESOLVE_IN_ROOT)),
                        "dot-dot", Described(Openat2(fd, "../../inner", O_RDONLY, RESOLVE_IN_ROOT)),
                        "symlink", Described(Openat2(fd, "absolute", O_RDONLY, RESOLVE_IN_ROOT)),
                        "outside", Rc(Openat2(fd, "/file", O_RDONLY, RESOLVE_IN_ROOT))});
         });
       }},
      {"openat2-in-root-creat",
       [] {
         if (::syscall(SYS_symlink, "/in-root-made", "dir/to-root") < 0) return "setup " + Rc(-1);
         return InDir([](int fd) {
           return Line({Fd(Openat2(fd, "to-root", O_CREAT | O_WRONLY, RESOLVE_IN_ROOT, 0600)),
                        LstatOf("dir/in-root-made"), "not", LstatOf("/in-root-made")});
         });
       }},
      {"openat2-in-root-cwd",
       [] { return Described(Openat2("/dir/../file", O_RDONLY, RESOLVE_IN_ROOT)); }},
      // RESOLVE_CACHED: what the walk just used is cached; creating or
      // truncating is refused up front.
      {"openat2-cached",
       [] {
         std::string first = Fd(Openat2("file", O_RDONLY));
         return Line({first, Described(Openat2("file", O_RDONLY, RESOLVE_CACHED)), "creat",
                      Rc(Openat2(AT_FDCWD, "cached-new", O_CREAT | O_WRONLY, RESOLVE_CACHED, 0600)),
                      "trunc", Rc(Openat2("file", O_WRONLY | O_TRUNC, RESOLVE_CACHED))});
       }},
  };
}

}  // namespace vigil::syscall_suite
