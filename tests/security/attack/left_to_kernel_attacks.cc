// What a policy leaves to the kernel (docs/security.md, "Where the sentry
// lets the kernel act"): under `agent` the sentry is not asked about reads
// at all, so the files it masks must stay masked by every route; and a
// write it decided beneath a kernel write tree is the kernel's to make, so
// a path swapped after the decision must not reach a file it keeps
// read-only.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "attack.h"

namespace vigil::security {
namespace {

// A file the agent profile masks and the harness leaves unmasked for this
// attack: the host's timers, readable by root, never empty on Linux.
constexpr char kMasked[] = "/proc/timer_list";

// How many bytes an open of `path` from `dirfd` gives (the first read), or
// -errno.
long BytesAt(int dirfd, const char* path) {
  const int fd = ::openat(dirfd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  char buf[256];
  const long n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n;
}

// An O_PATH descriptor of the masked file made by a child and passed over a
// unix socket, then reopened for reading through /proc/self/fd.
long BytesThroughAPassedDescriptor() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -errno;
  ChildResult sent = InChild([&]() -> long {
    const int fd = ::open(kMasked, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    char byte = 'x';
    iovec iov{.iov_base = &byte, .iov_len = 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
    return ::sendmsg(pair[0], &message, 0);
  });
  long bytes = -EBADF;
  char byte = 0;
  iovec iov{.iov_base = &byte, .iov_len = 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  if (sent.exited && sent.ret == 1 && ::recvmsg(pair[1], &message, MSG_DONTWAIT) == 1) {
    if (cmsghdr* cmsg = CMSG_FIRSTHDR(&message); cmsg != nullptr && cmsg->cmsg_type == SCM_RIGHTS) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(cmsg), sizeof fd);
      bytes = BytesAt(AT_FDCWD, ("/proc/self/fd/" + std::to_string(fd)).c_str());
      ::close(fd);
    }
  }
  ::close(pair[0]);
  ::close(pair[1]);
  return bytes;
}

// For 1 s another thread flips a path between a file of the container and
// the masked one while this one opens it: the largest read of a file that
// was not the benign one.
long BytesThroughAFlippedPath() {
  std::ofstream("/tmp/vsec-benign-read") << "benign\n";
  struct stat benign {};
  if (::stat("/tmp/vsec-benign-read", &benign) != 0) return -errno;
  static char path[64];
  std::snprintf(path, sizeof path, "%s", "/tmp/vsec-benign-read");
  Flipper flipper([&](long) {
    std::memcpy(path, kMasked, sizeof kMasked);
    std::memcpy(path, "/tmp/vsec-benign-read", sizeof "/tmp/vsec-benign-read");
  });
  long most = 0;
  for (const long long deadline = NowMs() + 1000; NowMs() < deadline;) {
    const int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
    if (fd < 0) continue;
    struct stat st {};
    char buf[256];
    if (::fstat(fd, &st) == 0 && st.st_ino != benign.st_ino) {
      most = std::max(most, static_cast<long>(::read(fd, buf, sizeof buf)));
    }
    ::close(fd);
  }
  return most;
}

Outcome AgentMaskedRead(const Context&) {
  ::symlink(kMasked, "/tmp/vsec-masked-link");
  const std::pair<std::string, long> routes[] = {
      {"path", BytesAt(AT_FDCWD, kMasked)},
      {"symlink", BytesAt(AT_FDCWD, "/tmp/vsec-masked-link")},
      {"/proc/self/root", BytesAt(AT_FDCWD, (std::string("/proc/self/root") + kMasked).c_str())},
      {"passed descriptor", BytesThroughAPassedDescriptor()},
      {"flipped path", BytesThroughAFlippedPath()},
  };
  std::string detail;
  bool escaped = false;
  for (const auto& [route, bytes] : routes) {
    if (!detail.empty()) detail += "; ";
    detail += route + ": " +
              (bytes < 0 ? ErrnoText(static_cast<int>(-bytes)) : std::to_string(bytes) + " bytes");
    escaped = escaped || bytes > 0;
  }
  return escaped ? Escaped(detail) : Contained(detail);
}

// For 2 s another thread flips a path between /tmp/vsec-benign-write (on
// the policy's writable tmpfs) and /etc/vsec-hidden (read-only by the
// policy, on a writable mount) while this one opens it for appending and
// writes: a sentry that left the write to the kernel without a Landlock
// layer holding writes to /tmp alone would let one land in the file.
Outcome ReadOnlyWriteFlip(const Context&) {
  std::ofstream("/tmp/vsec-benign-write") << "benign\n";
  static char path[64];
  const char benign[] = "/tmp/vsec-benign-write";
  const char kept[] = "/etc/vsec-hidden";
  std::snprintf(path, sizeof path, "%s", benign);
  long opens = 0, written = 0;
  {
    Flipper flipper([&](long) {
      std::memcpy(path, kept, sizeof kept);
      std::memcpy(path, benign, sizeof benign);
    });
    for (const long long deadline = NowMs() + 2000; NowMs() < deadline;) {
      const int fd =
          static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_APPEND | O_CLOEXEC));
      ++opens;
      if (fd < 0) continue;
      written += ::write(fd, "vsec-pwned\n", 11) == 11 ? 1 : 0;
      ::close(fd);
    }
  }
  std::ifstream in(kept);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string detail =
      std::to_string(opens) + " opens for writing, " + std::to_string(written) + " writes";
  if (text.find("vsec-pwned") != std::string::npos) {
    return Escaped(detail + "; one landed in " + std::string(kept));
  }
  return Contained(detail + "; " + kept + " unchanged");
}

}  // namespace

const std::vector<Attack>& LeftToKernelAttacks() {
  static const std::vector<Attack> kAttacks = {
      {"agent-masked-read", AgentMaskedRead,
       "under agent, read a file it masks by path, symlink, /proc/self/root, a passed descriptor "
       "and a flipped path"},
      {"read-only-write-flip", ReadOnlyWriteFlip,
       "a write open's path flipped between the policy's writable tmpfs and a file it keeps "
       "read-only (2 s)"},
  };
  return kAttacks;
}

}  // namespace vigil::security
