// Other processes and what the runtime hands the container: ptrace and
// process_vm_writev, leaked descriptors and working directory (CVE-2024-21626),
// the runtime's own binary through /proc/PID/exe (CVE-2019-5736), host
// interfaces under /proc, /sys and /dev, and the capability sets.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "attack.h"

namespace vigil::security {
namespace {

// A child that sleeps until killed (bounded: 30 s).
pid_t Sleeper() {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::sleep(30);
    ::_exit(0);
  }
  return pid;
}

void Reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

Outcome Ptrace(const Context&) {
  pid_t target = Sleeper();
  std::string detail;
  bool escaped = false;
  for (auto [what, pid] : {std::pair{"sibling", target}, std::pair{"pid 1", 1}}) {
    if (pid == ::getpid()) continue;
    if (::ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) == 0) {
      escaped = true;
      detail += std::string(what) + ": PTRACE_SEIZE ok; ";
      ::ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    } else {
      detail += std::string(what) + ": " + ErrnoText(errno) + "; ";
    }
  }
  Reap(target);
  return escaped ? Escaped(detail) : Contained(detail);
}

Outcome ProcessVmWritev(const Context&) {
  static volatile long cell = 0;
  pid_t target = Sleeper();
  long value = 0x5ec;
  iovec local{&value, sizeof value};
  iovec remote{const_cast<long*>(&cell), sizeof cell};
  ssize_t n = ::process_vm_writev(target, &local, 1, &remote, 1, 0);
  int err = errno;
  Reap(target);
  if (n == static_cast<ssize_t>(sizeof value)) return Escaped("wrote a sibling's memory");
  return Contained("process_vm_writev(sibling): " + ErrnoText(err));
}

// Every descriptor open at start beyond 0, 1, 2 came from the runtime. A
// directory is tried as a base for ../ out to the host secret.
// A socket that reaches nobody: sending fails (EPIPE: shut for writing)
// and nothing waits to be received, as the ptrace platform's descriptor
// channel (what the sentry sends on it is received at once, by the thread
// it is meant for).
bool InertSocket(int fd) {
  char byte = 0;
  const bool sends = ::send(fd, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0 || errno != EPIPE;
  const bool holds = ::recv(fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK) >= 0 || errno != EAGAIN;
  return !sends && !holds;
}

Outcome LeakedFds(const Context& c) {
  std::string detail;
  bool escaped = false;
  for (int fd = 3; fd < 4096; ++fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) continue;
    char target[256] = {};
    ssize_t n =
        ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), target, sizeof target - 1);
    if (n < 0) std::snprintf(target, sizeof target, "?");
    if (S_ISSOCK(st.st_mode) && InertSocket(fd)) {
      detail += "fd " + std::to_string(fd) + " -> " + target + " (inert); ";
      continue;
    }
    escaped = true;
    detail += "fd " + std::to_string(fd) + " -> " + target;
    if (S_ISDIR(st.st_mode)) {
      std::string got;
      if (ReadsSecret(fd, DotDots(40) + c.secret.substr(1), &got)) detail += " (" + got + ")";
    }
    detail += "; ";
  }
  if (!escaped)
    return Contained(detail.empty() ? "only 0, 1, 2 are open" : "beyond 0-2 only " + detail);
  return Escaped("leaked: " + detail);
}

// Run with process.cwd set to /proc/self/fd/N by the harness: a working
// directory outside the root (getcwd says "(unreachable)") is an escape.
Outcome CwdCheck(const Context& c) {
  char cwd[4096] = {};
  std::string where = ::getcwd(cwd, sizeof cwd) ? cwd : "getcwd: " + ErrnoText(errno);
  std::string got;
  if (ReadsSecret(AT_FDCWD, DotDots(40) + c.secret.substr(1), &got)) {
    return Escaped("cwd " + where + ": " + got);
  }
  if (where.rfind("(unreachable)", 0) == 0 || (!where.empty() && where[0] != '/')) {
    return Escaped("cwd outside the root: " + where);
  }
  return Contained("cwd " + where);
}

// CVE-2019-5736: while the harness runs `exec` into this container, grab
// /proc/PID/exe of every process that is not a container binary and try to
// reopen it for writing (O_WRONLY without O_TRUNC, nothing written).
Outcome ExeOverwrite(const Context&) {
  struct stat self {};
  struct stat busybox {};
  ::stat("/proc/self/exe", &self);
  ::stat("/bin/busybox", &busybox);
  auto container_binary = [&](const struct stat& st) {
    return (st.st_dev == self.st_dev && st.st_ino == self.st_ino) ||
           (st.st_dev == busybox.st_dev && st.st_ino == busybox.st_ino);
  };
  (void)!::write(1, "READY\n", 6);
  std::map<std::string, int> held;             // pid -> O_PATH fd of its exe
  std::set<std::string> foreign;               // exe paths of non-container binaries seen
  std::map<std::string, std::string> refused;  // pid -> why O_PATH on its exe failed
  std::string detail;
  long long deadline = NowMs() + 7000;
  while (NowMs() < deadline) {
    if (DIR* d = ::opendir("/proc")) {
      while (dirent* e = ::readdir(d)) {
        std::string pid = e->d_name;
        if (pid[0] < '1' || pid[0] > '9' || pid == std::to_string(::getpid())) continue;
        std::string exe = "/proc/" + pid + "/exe";
        int w = ::open(exe.c_str(), O_WRONLY | O_CLOEXEC);
        if (w >= 0) {
          ::close(w);
          ::closedir(d);
          return Escaped("opened " + exe + " for writing");
        }
        if (held.count(pid) || held.size() >= 64) continue;
        int fd = ::open(exe.c_str(), O_PATH | O_CLOEXEC);
        if (fd < 0) {
          if (refused.size() < 16) refused.emplace(pid, ErrnoText(errno));
          continue;
        }
        struct stat st {};
        if (::fstat(fd, &st) != 0 || container_binary(st)) {
          ::close(fd);
          continue;
        }
        char target[256] = {};
        (void)!::readlink(exe.c_str(), target, sizeof target - 1);
        foreign.insert(target);
        held[pid] = fd;
      }
      ::closedir(d);
    }
    for (const auto& [pid, fd] : held) {
      int w = ::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_WRONLY | O_CLOEXEC);
      if (w >= 0) {
        ::close(w);
        return Escaped("reopened the exe of pid " + pid + " for writing");
      }
    }
    ::usleep(2000);
  }
  for (const std::string& f : foreign) detail += f + " ";
  std::string seen = std::to_string(refused.size()) + " exe links refused O_PATH";
  if (!refused.empty()) seen += " (" + refused.begin()->second + ")";
  if (foreign.empty()) return Contained("no host binary reachable during exec; " + seen);
  return Contained("held O_PATH to host binaries, none writable: " + detail + "; " + seen);
}

// Two threads for 2 s: one flips a symlink between a binary the policy's
// exec allow-list names (/bin/true) and one it does not (a copy of this
// program in /tmp), the other forks children that exec the link. A sentry
// that checks the path at entry and lets the kernel look it up again runs
// the forbidden copy, which says so by exiting with kForbiddenRan. runc and
// runsc have no exec policy: for them the copy simply runs.
Outcome ExecPathFlip(const Context&) {
  constexpr const char* kLink = "/tmp/vsec-exec";
  constexpr const char* kForbidden = "/tmp/vsec-forbidden";
  {
    std::ifstream self("/proc/self/exe", std::ios::binary);
    std::ofstream copy(kForbidden, std::ios::binary);
    copy << self.rdbuf();
  }
  ::chmod(kForbidden, 0755);
  ::symlink("/bin/true", kLink);
  std::optional<Flipper> flipper;
  flipper.emplace([&](long i) {
    ::unlink("/tmp/vsec-exec.new");
    if (::symlink((i & 1) ? "/bin/true" : kForbidden, "/tmp/vsec-exec.new") == 0) {
      ::rename("/tmp/vsec-exec.new", kLink);
    }
  });
  std::map<std::string, long> tally;
  long long deadline = NowMs() + 2000;
  while (NowMs() < deadline && tally["forbidden ran"] == 0) {
    pid_t pid = ::fork();
    if (pid == 0) {
      char* const argv[] = {const_cast<char*>("true"), const_cast<char*>(kForbiddenRanArg),
                            nullptr};
      ::execv(kLink, argv);
      ::_exit(errno == EACCES ? 126 : 127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid) {
      ++tally["fork or wait failed"];
      continue;
    }
    if (WIFSIGNALED(status)) {
      ++tally[std::string("killed by ") + ::strsignal(WTERMSIG(status))];
    } else if (WEXITSTATUS(status) == kForbiddenRan) {
      ++tally["forbidden ran"];
    } else if (WEXITSTATUS(status) == 0) {
      ++tally["allowed ran"];
    } else if (WEXITSTATUS(status) == 126) {
      ++tally["refused (EACCES)"];
    } else {
      ++tally["exec failed otherwise"];
    }
  }
  flipper.reset();
  std::string detail;
  for (const auto& [what, n] : tally) {
    if (n > 0) detail += (detail.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  }
  detail += " in 2 s";
  if (tally["forbidden ran"] > 0) return Escaped(detail);
  if (tally["allowed ran"] == 0)
    return Escaped(detail + ": the allowed binary never ran (no race)");
  return Contained(detail);
}

Outcome OpenForWrite(const std::vector<std::string>& paths) {
  std::string detail;
  bool escaped = false;
  for (const std::string& p : paths) {
    int fd = ::open(p.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
      ::close(fd);  // nothing written
      escaped = true;
      detail += p + ": opened for writing; ";
    } else {
      detail += p + ": " + ErrnoText(errno) + "; ";
    }
  }
  return escaped ? Escaped(detail) : Contained(detail);
}

Outcome ProcSysrq(const Context&) { return OpenForWrite({"/proc/sysrq-trigger"}); }

Outcome ProcSys(const Context&) {
  return OpenForWrite({"/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
                       "/proc/sys/vm/drop_caches", "/proc/sys/kernel/panic"});
}

Outcome SysWrite(const Context&) {
  return OpenForWrite({"/sys/kernel/uevent_helper", "/sys/power/state", "/sys/kernel/mm/ksm/run",
                       "/sys/class/net/lo/mtu", "/sys/fs/cgroup/cgroup.procs"});
}

// A character device by mknod (and the path itself), opened read-only.
Outcome DeviceNode(const std::string& name, unsigned major_no, unsigned minor_no) {
  std::string detail;
  bool escaped = false;
  std::vector<std::string> paths = {"/dev/" + name};
  for (const char* dir : {"/dev/vsec-", "/tmp/vsec-"}) {
    std::string p = dir + name;
    ::unlink(p.c_str());
    if (::mknod(p.c_str(), S_IFCHR | 0600, makedev(major_no, minor_no)) == 0) {
      paths.push_back(p);
    } else {
      detail += "mknod " + p + ": " + ErrnoText(errno) + "; ";
    }
  }
  for (const std::string& p : paths) {
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      ::close(fd);
      escaped = true;
      detail += p + ": opened; ";
    } else {
      detail += p + ": " + ErrnoText(errno) + "; ";
    }
    if (p.find("vsec-") != std::string::npos) ::unlink(p.c_str());
  }
  return escaped ? Escaped(detail) : Contained(detail);
}

// /dev/kmsg given by linux.devices with a device rule that grants only
// reads (the harness's config): it may open for reading, never for writing.
// Nothing is read or written; the descriptors are closed at once.
Outcome DeviceRuleWrite(const Context&) {
  std::string detail;
  int fd = ::open("/dev/kmsg", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  detail += fd >= 0 ? "read: opened (the rule allows it); " : "read: " + ErrnoText(errno) + "; ";
  if (fd >= 0) ::close(fd);
  fd = ::open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0) {
    ::close(fd);
    return Escaped(detail + "write: opened against the rule");
  }
  return Contained(detail + "write: " + ErrnoText(errno));
}

Outcome DevMem(const Context&) { return DeviceNode("mem", 1, 1); }
Outcome DevKmsg(const Context&) { return DeviceNode("kmsg", 1, 11); }

// Every capability set must be within what the config grants.
Outcome CapsEffective(const Context& c) {
  std::ifstream in("/proc/self/status");
  std::string line, detail;
  bool escaped = false;
  while (std::getline(in, line)) {
    for (const char* key : {"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"}) {
      if (line.rfind(key, 0) != 0) continue;
      std::uint64_t mask = std::strtoull(line.c_str() + 7, nullptr, 16);
      std::uint64_t extra = mask & ~c.caps;
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s %016llx", key, static_cast<unsigned long long>(mask));
      detail += buf;
      if (extra) {
        escaped = true;
        std::snprintf(buf, sizeof buf, " (beyond the config: %016llx)",
                      static_cast<unsigned long long>(extra));
        detail += buf;
      }
      detail += "; ";
    }
  }
  return escaped ? Escaped(detail) : Contained(detail);
}

}  // namespace

const std::vector<Attack>& ProcessAttacks() {
  static const std::vector<Attack> kAttacks = {
      {"ptrace", Ptrace, "PTRACE_SEIZE a sibling and pid 1"},
      {"process-vm-writev", ProcessVmWritev, "write a sibling's memory"},
      {"leaked-fds", LeakedFds, "descriptors beyond 0-2 handed over by the runtime"},
      {"exec-path-flip", ExecPathFlip,
       "flip a symlink between an allowed and a forbidden binary while exec'ing it (2 s)"},
      {"cwd-check", CwdCheck, "run with cwd /proc/self/fd/N (CVE-2024-21626)"},
      {"exe-overwrite", ExeOverwrite,
       "reopen /proc/PID/exe of exec'd runtime for writing (CVE-2019-5736)"},
      {"proc-sysrq", ProcSysrq, "open /proc/sysrq-trigger for writing"},
      {"proc-sys", ProcSys, "open host sysctls under /proc/sys for writing"},
      {"sys-write", SysWrite, "open /sys files for writing (uevent_helper, power/state, ...)"},
      {"dev-mem", DevMem, "mknod and open /dev/mem read-only"},
      {"dev-kmsg", DevKmsg, "mknod and open /dev/kmsg read-only"},
      {"device-rule-write", DeviceRuleWrite,
       "open /dev/kmsg for writing where linux.devices gives it and the rule grants only r"},
      {"device-rule-write-sentry", DeviceRuleWrite,
       "the same under a file policy, where the sentry opens files for the workload"},
      {"caps-effective", CapsEffective, "capability sets beyond what the config grants"},
  };
  return kAttacks;
}

}  // namespace vigil::security
