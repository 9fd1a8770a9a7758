// Resource exhaustion against the limits the harness sets. Each bomb is
// bounded well below what would hurt the machine if the limit did not hold:
// at most 512 processes, 4x the memory limit (capped at 1 GiB), 2 s of CPU,
// 8x the tmpfs size (capped at 256 MiB).
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "attack.h"

namespace vigil::security {
namespace {

Outcome ForkBomb(const Context& c) {
  if (c.pids_limit <= 0) return Escaped("no pids limit was configured");
  constexpr int kMax = 512;
  std::vector<pid_t> kids;
  int err = 0;
  for (int i = 0; i < kMax; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::sleep(20);  // killed below long before
      ::_exit(0);
    }
    if (pid < 0) {
      err = errno;
      break;
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) ::kill(pid, SIGKILL);
  for (pid_t pid : kids) ::waitpid(pid, nullptr, 0);
  std::string detail = std::to_string(kids.size()) + " forks succeeded (pids.limit " +
                       std::to_string(c.pids_limit) + ")" +
                       (err ? ", then " + ErrnoText(err) : ", never refused");
  // The limit counts every task in the cgroup, the attacker included.
  if (static_cast<long>(kids.size()) >= c.pids_limit) return Escaped(detail);
  return Contained(detail);
}

Outcome MemoryBomb(const Context& c) {
  if (c.memory_limit <= 0) return Escaped("no memory limit was configured");
  const long kChunk = 4L << 20;
  const long max = std::min(4 * c.memory_limit, 1L << 30);
  int p[2];
  if (::pipe(p) != 0) return Contained("pipe: " + ErrnoText(errno));
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    long touched = 0;
    while (touched < max) {
      void* m = ::mmap(nullptr, kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED) ::_exit(3);
      std::memset(m, 0x5a, kChunk);
      touched += kChunk;
      (void)!::write(p[1], &touched, sizeof touched);
    }
    ::_exit(0);
  }
  ::close(p[1]);
  long touched = 0, v = 0;
  while (::read(p[0], &v, sizeof v) == static_cast<ssize_t>(sizeof v)) touched = v;
  ::close(p[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::string how = WIFSIGNALED(status)
                        ? "killed by SIG" + std::string(sigabbrev_np(WTERMSIG(status)))
                    : WEXITSTATUS(status) == 3 ? "mmap failed"
                                               : "finished";
  std::string detail = "touched " + std::to_string(touched >> 20) + " MiB (limit " +
                       std::to_string(c.memory_limit >> 20) + " MiB), " + how;
  if (touched > c.memory_limit + (8L << 20)) return Escaped(detail);
  return Contained(detail);
}

double CpuSeconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// A cheap mediated syscall in a loop for 3 s (uname: the sentry answers and
// audits it under every policy). The attack itself cannot see what it cost
// the host; the harness measures the runtime's process and the audit log
// (tests/security/run, run_flood).
Outcome AuditFlood(const Context&) {
  long calls = 0;
  const long long deadline = NowMs() + 3000;
  utsname names{};
  while (NowMs() < deadline) {
    for (int i = 0; i < 100; ++i) ::uname(&names);
    calls += 100;
  }
  return Contained(std::to_string(calls) + " uname calls in 3 s");
}

Outcome CpuSpin(const Context& c) {
  if (c.cpu_percent <= 0) return Escaped("no cpu quota was configured");
  double wall0 = CpuSeconds(CLOCK_MONOTONIC), cpu0 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  volatile unsigned long spin = 0;
  while (CpuSeconds(CLOCK_MONOTONIC) - wall0 < 2.0) {
    for (int i = 0; i < 100000; ++i) spin = spin + 1;
  }
  double wall = CpuSeconds(CLOCK_MONOTONIC) - wall0;
  double cpu = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  int percent = static_cast<int>(100 * cpu / wall);
  std::string detail = "used " + std::to_string(percent) + "% of one CPU for 2 s (quota " +
                       std::to_string(c.cpu_percent) + "%)";
  // Slack for the first period and scheduler granularity.
  if (percent > 2 * c.cpu_percent + 10) return Escaped(detail);
  return Contained(detail);
}

Outcome TmpFill(const Context& c) {
  if (c.tmpfs_size <= 0) return Escaped("no tmpfs size was configured");
  const long max = std::min(8 * c.tmpfs_size, 256L << 20);
  static char chunk[1 << 20];
  std::memset(chunk, 0x5a, sizeof chunk);
  int fd = ::open("/tmp/vsec-fill", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Contained("open /tmp/vsec-fill: " + ErrnoText(errno));
  long written = 0;
  int err = 0;
  while (written < max) {
    ssize_t n = ::write(fd, chunk, sizeof chunk);
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    written += n;
  }
  ::close(fd);
  ::unlink("/tmp/vsec-fill");
  std::string detail = "wrote " + std::to_string(written >> 20) + " MiB to /tmp (size " +
                       std::to_string(c.tmpfs_size >> 20) + " MiB)" +
                       (err ? ", then " + ErrnoText(err) : "");
  if (written > c.tmpfs_size + (1L << 20)) return Escaped(detail);
  return Contained(detail);
}

}  // namespace

const std::vector<Attack>& ResourceAttacks() {
  static const std::vector<Attack> kAttacks = {
      {"fork-bomb", ForkBomb, "fork up to 512 sleepers against pids.limit"},
      {"memory-bomb", MemoryBomb, "touch up to 4x the memory limit in a child"},
      {"cpu-spin", CpuSpin, "spin 2 s against the cpu quota"},
      {"audit-flood", AuditFlood,
       "uname in a loop for 3 s under the cpu quota: the supervisor's CPU and audit bytes"},
      {"tmp-fill", TmpFill, "fill /tmp against the tmpfs size"},
  };
  return kAttacks;
}

}  // namespace vigil::security
