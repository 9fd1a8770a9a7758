#include "bench/syscalls/syscall_ops.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vigil::bench {
namespace {

// Raw syscalls throughout: glibc may cache or wrap (getpid caching, uname's
// vsyscall history), and the point is one kernel entry per call.

bool NoSetup(OpContext&) { return true; }
void NoTeardown(OpContext&) {}

bool FileSetup(OpContext& c) {
  std::snprintf(c.dir, sizeof c.dir, "/tmp/vigil-bench-XXXXXX");
  if (::mkdtemp(c.dir) == nullptr) return false;
  std::snprintf(c.file, sizeof c.file, "%s/file", c.dir);
  c.fd = ::open(c.file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (c.fd < 0) return false;
  std::memset(c.buffer, 'x', sizeof c.buffer);
  return ::pwrite(c.fd, c.buffer, sizeof c.buffer, 0) == static_cast<ssize_t>(sizeof c.buffer);
}
void FileTeardown(OpContext& c) {
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
  ::unlink(c.file);
  ::rmdir(c.dir);
}

void Getppid(OpContext&, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) ::syscall(SYS_getppid);
}

void Uname(OpContext&, std::uint64_t n) {
  struct utsname u;
  for (std::uint64_t i = 0; i < n; ++i) ::syscall(SYS_uname, &u);
}

void Read4k(OpContext& c, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) ::syscall(SYS_pread64, c.fd, c.buffer, 4096, 0);
}

void Write4k(OpContext& c, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) ::syscall(SYS_pwrite64, c.fd, c.buffer, 4096, 0);
}

void OpenClose(OpContext& c, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    long fd = ::syscall(SYS_openat, AT_FDCWD, c.file, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) ::syscall(SYS_close, fd);
  }
}

void OpenWriteClose(OpContext& c, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    long fd = ::syscall(SYS_openat, AT_FDCWD, c.file, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) ::syscall(SYS_close, fd);
  }
}

void Stat(OpContext& c, std::uint64_t n) {
  struct stat st;
  for (std::uint64_t i = 0; i < n; ++i) ::syscall(SYS_newfstatat, AT_FDCWD, c.file, &st, 0);
}

void ForkWait(OpContext&, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    if (pid > 0) ::waitpid(pid, nullptr, 0);
  }
}

void MmapMunmap(OpContext&, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    void* p = ::mmap(nullptr, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) ::munmap(p, 65536);
  }
}

void SocketClose(OpContext&, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    long fd = ::syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) ::syscall(SYS_close, fd);
  }
}

// Pipe round trip: a child echoes each byte back on a second pipe.
bool PipeSetup(OpContext& c) {
  if (::pipe2(c.ping, O_CLOEXEC) != 0 || ::pipe2(c.pong, O_CLOEXEC) != 0) return false;
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    ::close(c.ping[1]);  // else the echo never sees end of file
    ::close(c.pong[0]);
    char byte;
    while (::read(c.ping[0], &byte, 1) == 1) {
      if (::write(c.pong[1], &byte, 1) != 1) break;
    }
    ::_exit(0);
  }
  c.echo_pid = pid;
  ::close(c.ping[0]);
  ::close(c.pong[1]);
  c.ping[0] = c.pong[1] = -1;
  return true;
}
void PipeRun(OpContext& c, std::uint64_t n) {
  char byte = 'p';
  for (std::uint64_t i = 0; i < n; ++i) {
    if (::write(c.ping[1], &byte, 1) != 1 || ::read(c.pong[0], &byte, 1) != 1) return;
  }
}
void PipeTeardown(OpContext& c) {
  for (int* fds : {c.ping, c.pong}) {
    for (int i = 0; i < 2; ++i) {
      if (fds[i] >= 0) ::close(fds[i]);
      fds[i] = -1;
    }
  }
  if (c.echo_pid > 0) ::waitpid(c.echo_pid, nullptr, 0);
  c.echo_pid = -1;
}

constexpr Op kOps[] = {
    {"getppid", "getppid(2): the cheapest syscall (fast path)", NoSetup, Getppid, NoTeardown},
    {"read_4k", "pread64 of 4 KiB from a file in /tmp", FileSetup, Read4k, FileTeardown},
    {"write_4k", "pwrite64 of 4 KiB to a file in /tmp", FileSetup, Write4k, FileTeardown},
    {"open_close", "openat + close of a file in /tmp", FileSetup, OpenClose, FileTeardown},
    {"stat", "newfstatat of a file in /tmp", FileSetup, Stat, FileTeardown},
    {"open_write_close",
     "openat O_WRONLY + close of a file in /tmp: decided and audited under agent", FileSetup,
     OpenWriteClose, FileTeardown},
    {"fork_wait", "fork, child _exit(0), waitpid", NoSetup, ForkWait, NoTeardown},
    {"mmap_munmap", "mmap + munmap of 64 KiB anonymous, untouched", NoSetup, MmapMunmap,
     NoTeardown},
    {"socket_close", "socket(AF_UNIX, SOCK_STREAM) + close", NoSetup, SocketClose, NoTeardown},
    {"pipe_roundtrip", "1 byte there and back between two processes over pipes", PipeSetup, PipeRun,
     PipeTeardown},
    {"uname", "uname(2): mediated by vigil's sentry today", NoSetup, Uname, NoTeardown},
};

}  // namespace

const Op* Ops(std::size_t& count) {
  count = sizeof kOps / sizeof kOps[0];
  return kOps;
}

}  // namespace vigil::bench
