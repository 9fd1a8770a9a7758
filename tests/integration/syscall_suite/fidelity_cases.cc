// What a program sees besides each call's own result: directory listings
// read in small pieces, the /proc files that describe the container
// (mounts, network), calls that block until another process acts, and the
// process's starting environment (HOME, the loopback interface).
#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// getdents64 on a fresh descriptor of `path` with a buffer of `size`
// bytes: the call's result and, if it returned records, how many.
std::string FirstBatch(const char* path, std::size_t size) {
  return WithFd(path, O_RDONLY | O_DIRECTORY, [size](int fd) {
    alignas(8) char buffer[4096];
    long n = ::syscall(SYS_getdents64, fd, buffer, size);
    if (n <= 0) return Rc(n);
    int records = 0;
    for (long at = 0; at < n; ++records) {
      at += reinterpret_cast<const dirent64*>(buffer + at)->d_reclen;
    }
    return "records=" + std::to_string(records);
  });
}

// The whole of `path` read with a buffer of `size` bytes: the number of
// entries, or the first error.
std::string CountWith(const char* path, std::size_t size) {
  return WithFd(path, O_RDONLY | O_DIRECTORY, [size](int fd) {
    alignas(8) char buffer[4096];
    int entries = 0;
    for (;;) {
      long n = ::syscall(SYS_getdents64, fd, buffer, size);
      if (n < 0) return "after " + std::to_string(entries) + " " + Rc(n);
      if (n == 0) return "entries=" + std::to_string(entries);
      for (long at = 0; at < n; ++entries) {
        at += reinterpret_cast<const dirent64*>(buffer + at)->d_reclen;
      }
    }
  });
}

// The size of the first record getdents64 gives for `path` ("." on tmpfs).
std::size_t FirstRecordSize(const char* path) {
  std::size_t size = 0;
  WithFd(path, O_RDONLY | O_DIRECTORY, [&size](int fd) {
    alignas(8) char buffer[4096];
    if (::syscall(SYS_getdents64, fd, buffer, sizeof buffer) > 0) {
      size = reinterpret_cast<const dirent64*>(buffer)->d_reclen;
    }
    return std::string();
  });
  return size;
}

// Whether `path` opens and reads: "read" (some bytes) or the error.
std::string Readable(const char* path) {
  return WithFd(path, O_RDONLY, [](int fd) {
    char buffer[256];
    long n = ::read(fd, buffer, sizeof buffer);
    return n > 0 ? std::string("read") : Rc(n);
  });
}

// Opens the FIFO `path` for reading while a child opens it for writing
// after `delay_ms` (never if negative) and writes "w", under an interval
// timer of `timer_ms` whose SIGALRM handler has `flags`: the open's result
// and what a read then gets ("w" only if the open waited for the writer).
// The writer gives up after 3 s (SIGALRM), so a reader that did not wait
// cannot hang the suite.
std::string OpenFifoWhile(const char* path, int delay_ms, int timer_ms, int flags) {
  return InChild([=] {
    pid_t writer = -1;
    if (delay_ms >= 0) {
      writer = ::fork();
      if (writer == 0) {
        ::alarm(3);
        ::usleep(static_cast<useconds_t>(delay_ms) * 1000);
        int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_WRONLY));
        if (fd >= 0) (void)!::write(fd, "w", 1);
        ::usleep(200'000);
        ::_exit(fd < 0 ? 1 : 0);
      }
    }
    struct sigaction action {};
    action.sa_handler = [](int) {};
    action.sa_flags = flags;
    ::sigaction(SIGALRM, &action, nullptr);
    itimerval timer{};
    timer.it_value.tv_usec = timer_ms * 1000;
    if (timer_ms > 0) ::setitimer(ITIMER_REAL, &timer, nullptr);
    long fd = ::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    std::string text = Rc(fd);
    if (fd >= 0) {
      char byte = 0;
      long n = ::read(static_cast<int>(fd), &byte, 1);
      text = "fd read=" + (n == 1 ? std::string(1, byte) : std::string());
      ::close(static_cast<int>(fd));
    }
    if (writer > 0) ::waitpid(writer, nullptr, 0);
    return text;
  });
}

// Whether the loopback interface was up when the program started.
std::string LoopbackAtStart() {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return "socket " + Rc(-1);
  ifreq request{};
  std::strcpy(request.ifr_name, "lo");
  std::string text = ::ioctl(s, SIOCGIFFLAGS, &request) < 0 ? Rc(-1)
                     : (request.ifr_flags & IFF_UP)         ? "up"
                                                            : "down";
  ::close(s);
  return text;
}

}  // namespace

std::vector<Case> FidelityCases() {
  return {
      // Before any case touches the network or the environment.
      {"start-loopback", [] { return LoopbackAtStart(); }},
      {"start-home",
       [] {
         const char* home = std::getenv("HOME");
         return home == nullptr ? std::string("(unset)") : std::string(home);
       }},
      {"fidelity-fixture", [] { return MakeFixture("fidelity"); }},
      // getdents64 with buffers too small for the next record, exactly one
      // record, and just past it.
      {"getdents64-buffer-1", [] { return FirstBatch(".", 1); }},
      {"getdents64-buffer-0", [] { return FirstBatch(".", 0); }},
      {"getdents64-buffer-one-record-less-1",
       [] { return FirstBatch(".", FirstRecordSize(".") - 1); }},
      {"getdents64-buffer-one-record", [] { return FirstBatch(".", FirstRecordSize(".")); }},
      {"getdents64-buffer-one-record-plus-1",
       [] { return FirstBatch(".", FirstRecordSize(".") + 1); }},
      {"getdents64-count-buffer-32", [] { return CountWith(".", 32); }},
      {"getdents64-count-buffer-40", [] { return CountWith(".", 40); }},
      {"getdents64-count-buffer-4096", [] { return CountWith(".", 4096); }},
      // gVisor's syscall tests, which found these differences: a buffer
      // that ends where a guard page begins, and a count past INT_MAX.
      {"getdents64-buffer-before-guard-page",
       [] {
         return InChild([] {
           const long page = ::sysconf(_SC_PAGESIZE);
           char* area = static_cast<char*>(::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
           if (area == MAP_FAILED || ::mprotect(area + page, page, PROT_NONE) != 0) {
             return std::string("mmap failed");
           }
           return WithFd(".", O_RDONLY | O_DIRECTORY, [&](int fd) {
             return ::syscall(SYS_getdents64, fd, area, page) > 0 ? std::string("records") : Rc(-1);
           });
         });
       }},
      {"getdents64-count-over-int-max",
       [] {
         return WithFd(".", O_RDONLY | O_DIRECTORY, [](int fd) {
           alignas(8) static char buffer[4096];
           return Rc(::syscall(SYS_getdents64, fd, buffer, 0x80000000ul) > 0 ? 1 : -1);
         });
       }},
      {"getdents64-efault",
       [] {
         return WithFd(".", O_RDONLY | O_DIRECTORY,
                       [](int fd) { return Rc(::syscall(SYS_getdents64, fd, kBadPointer, 4096)); });
       }},
      // Magic links of /proc: a namespace and a memfd reached through them.
      {"access-proc-self-ns-pid", [] { return Rc(::access("/proc/self/ns/pid", F_OK)); }},
      {"lstat-proc-self-fd-is-the-link",
       [] {
         struct stat st {};
         return Rc(::lstat("/proc/self/fd/0", &st) == 0 && S_ISLNK(st.st_mode) ? 0 : -1);
       }},
      {"stat-proc-self-ns-net",
       [] {
         struct stat st {};
         return Rc(::stat("/proc/self/ns/net", &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1);
       }},
      {"open-memfd-through-proc-fd",
       [] {
         const int memfd = static_cast<int>(::syscall(SYS_memfd_create, "suite", 0));
         if (memfd < 0) return "memfd_create " + Rc(-1);
         const std::string path =
             "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(memfd);
         std::string text = Fd(::syscall(SYS_openat, AT_FDCWD, path.c_str(), O_RDWR | O_CLOEXEC));
         ::close(memfd);
         return text;
       }},
      {"setxattr-bad-flags",
       [] { return Rc(::syscall(SYS_setxattr, "file", "user.suite", "v", 1, 0x100)); }},
      {"readlink-exe-of-a-zombie",
       [] {
         const pid_t child = ::fork();
         if (child == 0) ::_exit(0);
         siginfo_t info{};
         ::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT);
         char target[256];
         const std::string path = "/proc/" + std::to_string(child) + "/exe";
         std::string text = Rc(::readlink(path.c_str(), target, sizeof target) < 0 ? -1 : 0);
         ::waitpid(child, nullptr, 0);
         return text;
       }},
      // The container's own descriptions of itself.
      {"proc-mounts", [] { return Readable("/proc/mounts"); }},
      {"proc-self-mounts", [] { return Readable("/proc/self/mounts"); }},
      {"proc-self-mountinfo", [] { return Readable("/proc/self/mountinfo"); }},
      {"proc-self-mountstats", [] { return Readable("/proc/self/mountstats"); }},
      {"proc-net-dev", [] { return Readable("/proc/net/dev"); }},
      {"proc-net-unix", [] { return Readable("/proc/net/unix"); }},
      {"proc-net-tcp", [] { return Readable("/proc/net/tcp"); }},
      {"proc-self-net-route", [] { return Readable("/proc/self/net/route"); }},
      {"proc-thread-self-mountinfo", [] { return Readable("/proc/thread-self/mountinfo"); }},
      {"proc-mounts-lstat", [] { return LstatOf("/proc/mounts"); }},
      {"proc-net-readlink",
       [] {
         char text[64] = {};
         long n = ::syscall(SYS_readlink, "/proc/net", text, sizeof text - 1);
         return n < 0 ? Rc(n) : std::string(text);
       }},
      {"proc-net-dev-relative",
       [] {
         return WithFd("/proc", O_RDONLY | O_DIRECTORY, [](int proc) {
           return Fd(::syscall(SYS_openat, proc, "net/dev", O_RDONLY | O_CLOEXEC));
         });
       }},
      // A FIFO's open waits for the other end, and a signal interrupts it
      // as the handler's SA_RESTART says.
      {"fifo-make", [] { return Rc(::syscall(SYS_mknodat, AT_FDCWD, "fifo", S_IFIFO | 0666, 0)); }},
      {"fifo-open-waits-for-writer", [] { return OpenFifoWhile("fifo", 300, 0, 0); }},
      {"fifo-open-nonblock-no-writer",
       [] { return Fd(::syscall(SYS_openat, AT_FDCWD, "fifo", O_RDONLY | O_NONBLOCK)); }},
      {"fifo-open-write-nonblock-no-reader",
       [] { return Fd(::syscall(SYS_openat, AT_FDCWD, "fifo", O_WRONLY | O_NONBLOCK)); }},
      {"fifo-open-interrupted", [] { return OpenFifoWhile("fifo", -1, 200, 0); }},
      {"fifo-open-restarted", [] { return OpenFifoWhile("fifo", 500, 200, SA_RESTART); }},
  };
}

}  // namespace vigil::syscall_suite
