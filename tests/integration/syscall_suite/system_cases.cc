// The answers the sentry emulates (uname, sysinfo) and execve checked.
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// Forks; the child execve's `path` with `argv`/`envp` and, if that
// returns, exits with 100 + errno. The status is the child's.
std::string Exec(const char* path, char* const* argv, char* const* envp) {
  pid_t pid = ::fork();
  if (pid < 0) return "fork " + Rc(-1);
  if (pid == 0) {
    ::syscall(SYS_execve, path, argv, envp);
    ::_exit(100 + errno);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) < 0) return "waitpid " + Rc(-1);
  if (!WIFEXITED(status)) return "signal " + std::to_string(WTERMSIG(status));
  int code = WEXITSTATUS(status);
  if (code >= 100) return "-1 " + ErrnoName(code - 100);
  return "exit " + std::to_string(code);
}

}  // namespace

std::vector<Case> SystemCases() {
  static char kTrue[] = "true";
  static char kFalse[] = "false";
  static char* const true_argv[] = {kTrue, nullptr};
  static char* const false_argv[] = {kFalse, nullptr};
  static char* const no_env[] = {nullptr};
  return {
      {"system-fixture", [] { return MakeFixture("system"); }},
      {"uname",
       [] {
         utsname u;
         if (::syscall(SYS_uname, &u) < 0) return Rc(-1);
         return std::string("sysname=") + u.sysname + " machine=" + u.machine +
                " nodename=" + u.nodename;
       }},
      {"uname-efault", [] { return Rc(::syscall(SYS_uname, kBadPointer)); }},
      {"sysinfo",
       [] {
         struct sysinfo info;
         if (::syscall(SYS_sysinfo, &info) < 0) return Rc(-1);
         return std::string("totalram>0=") + (info.totalram > 0 ? "yes" : "no") +
                " freeram<=totalram=" + (info.freeram <= info.totalram ? "yes" : "no") +
                " procs>=1=" + (info.procs >= 1 ? "yes" : "no") +
                " mem_unit>0=" + (info.mem_unit > 0 ? "yes" : "no");
       }},
      {"sysinfo-efault", [] { return Rc(::syscall(SYS_sysinfo, kBadPointer)); }},
      {"execve-true", [] { return Exec("/bin/true", true_argv, no_env); }},
      {"execve-false", [] { return Exec("/bin/false", false_argv, no_env); }},
      {"execve-busybox-applet", [] { return Exec("/bin/busybox", true_argv, no_env); }},
      {"execve-missing", [] { return Exec("/bin/missing", true_argv, no_env); }},
      {"execve-dir", [] { return Exec("/bin", true_argv, no_env); }},
      {"execve-not-executable", [] { return Exec("file", true_argv, no_env); }},
      {"execve-enotdir", [] { return Exec("file/x", true_argv, no_env); }},
      {"execve-dangling", [] { return Exec("dangling", true_argv, no_env); }},
      {"execve-efault",
       [] { return Exec(static_cast<const char*>(kBadPointer), true_argv, no_env); }},
      {"execve-path-too-long", [] { return Exec(PathTooLong(), true_argv, no_env); }},
  };
}

}  // namespace vigil::syscall_suite
