#include "supervisor/self_confinement.h"

#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <malloc.h>
#include <seccomp.h>
#include <sys/ptrace.h>
#include <sys/socket.h>

#include <cerrno>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "seccomp/bpf.h"
#include "seccomp/profile.h"

namespace vigil::supervisor {
namespace {

// Grouped by what needs them. Kept out on purpose: execve, clone, fork,
// process_vm_*, mount and friends, setns, unshare, chroot, bpf,
// perf_event_open, io_uring, keyctl, modules, reboot, setuid/setgid (only
// the filesystem ids are switched, and the real and effective ids as
// kWithArguments says), personality. ptrace is allowed only for
// the requests in kPtraceRequests.
// Grouped by purpose, several names a line: clang-format would put one a line.
// clang-format off
constexpr std::string_view kAllowed[] = {
    // The event loop: epoll, timers, signals, the control socket; an epoll
    // set of its own for a handler that waits for a descriptor or a time.
    "epoll_create1", "epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "poll", "ppoll",
    "timerfd_create", "timerfd_settime", "timerfd_gettime", "accept4", "recvmsg", "sendmsg",
    "getsockopt", "read", "write", "readv", "writev", "close", "close_range",
    // Notifications and the workload's threads (seccomp_unotify(2), pidfds,
    // /proc/TID/mem).
    "ioctl", "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "pread64", "pwrite64",
    // Files, as the handlers resolve and act on them.
    "openat", "openat2", "open", "fcntl", "dup", "dup3", "fstat", "newfstatat", "statx", "lseek",
    "fstatfs", "statfs", "readlink", "readlinkat", "faccessat", "faccessat2", "access",
    "getdents64", "getdents", "mkdirat", "mknodat", "symlinkat", "unlinkat", "unlink",
    "renameat2", "rename", "linkat", "link", "fchmodat", "chmod", "fchmod", "fchownat",
    "fchown", "ftruncate", "utimensat", "getxattr", "setxattr", "listxattr", "removexattr",
    "memfd_create", "fsync", "fdatasync", "inotify_add_watch",
    // Removing the container's cgroup and state once its foreground client
    // is gone (supervisor_ending.cc): the state directory's lock, and the
    // directories' removal.
    "flock", "rmdir",
    // Acting as the workload (ActingAs).
    "setfsuid", "setfsgid", "setgroups", "getgroups", "capget", "capset", "umask",
    // Network handlers: on the workload's own socket; the sandbox's
    // resolver (supervisor_names.cc) on its own.
    "connect", "bind", "sendto", "recvfrom", "setsockopt", "getsockname", "getpeername",
    // Emulated answers.
    "uname", "sysinfo", "sched_getaffinity",
    // Children the supervisor reaps (orphans, as subreaper) and signals it
    // forwards; its own end, mirroring the init's.
    "waitid", "wait4", "kill", "tgkill", "tkill", "rt_sigaction", "rt_sigprocmask",
    "rt_sigreturn", "restart_syscall", "setrlimit", "prlimit64", "getrlimit", "exit",
    "exit_group",
    // The process itself: memory, time, ids.
    "mmap", "munmap", "mprotect", "mremap", "madvise", "brk", "futex", "clock_gettime",
    "clock_nanosleep", "nanosleep", "gettimeofday", "getrandom", "getpid", "gettid", "getppid",
    "getuid", "geteuid", "getgid", "getegid", "sched_yield",
};
// clang-format on

// Allowed only with these arguments (masked to the 32 bits the kernel
// reads, or to the bits given). NETLINK_ROUTE sockets, opened by the
// sentry as an opener without CAP_NET_ADMIN (sentry/handlers/netlink.h),
// the one socket kind (but the resolver's, below); the serving thread is
// in the container's network namespace already and has no setns to leave
// it. The real and effective uid and gid, but never the
// saved ones: an outsider's euid for that opening, a workload's ids for a
// unix connect or send (ActingAs::AsPeer), and back.
struct ArgumentCondition {
  unsigned index;
  std::uint64_t value;
  std::uint64_t mask = 0xffffffff;
};
struct ArgumentRule {
  std::string_view name;
  std::vector<ArgumentCondition> equal;
};
// socket(2)'s type without SOCK_NONBLOCK and SOCK_CLOEXEC.
constexpr std::uint64_t kSocketType = 0xf;
const ArgumentRule kWithArguments[] = {
    {"socket", {{0, AF_NETLINK}, {2, NETLINK_ROUTE}}},
    {"setresuid", {{2, 0xffffffff}}},
    {"setresgid", {{2, 0xffffffff}}},
};
// Where the supervisor runs the sandbox's resolver (supervisor_names.cc):
// the UDP sockets of its upstream queries, and TCP ones for an upstream
// answer too long for UDP (c-ares asks again over TCP, and does so always
// under resolv.conf's use-vc). Never raw or packet sockets.
const ArgumentRule kResolverSockets[] = {
    {"socket", {{0, AF_INET}, {1, SOCK_DGRAM, kSocketType}}},
    {"socket", {{0, AF_INET6}, {1, SOCK_DGRAM, kSocketType}}},
    {"socket", {{0, AF_INET}, {1, SOCK_STREAM, kSocketType}}},
    {"socket", {{0, AF_INET6}, {1, SOCK_STREAM, kSocketType}}},
};

Result<void> AddArgumentRule(scmp_filter_ctx ctx, const ArgumentRule& rule) {
  const int number = seccomp_syscall_resolve_name(std::string(rule.name).c_str());
  if (number == __NR_SCMP_ERROR) return Fail(StrCat("seccomp: unknown syscall ", rule.name));
  std::vector<scmp_arg_cmp> conditions;
  for (const ArgumentCondition& condition : rule.equal) {
    conditions.push_back({condition.index, SCMP_CMP_MASKED_EQ, condition.mask, condition.value});
  }
  if (seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, number, static_cast<unsigned>(conditions.size()),
                             conditions.data()) != 0) {
    return Fail(StrCat("seccomp: allow ", rule.name, " with its arguments"));
  }
  return {};
}

// Exec verification (sentry/notify/exec_watch.h) seizes an exec'ing thread,
// lets its stops go on, reads which thread exec'd and detaches it. Nothing
// that reads or writes a tracee's memory or registers: a supervisor turned
// against the host could seize a process, but not steer it.
constexpr long kPtraceRequests[] = {PTRACE_SEIZE, PTRACE_CONT, PTRACE_LISTEN, PTRACE_DETACH,
                                    PTRACE_GETEVENTMSG};
// The ptrace platform (sentry/ptrace/ptrace_server.h) also reads and sets
// the registers of a thread in a seccomp stop: that is how it answers, and
// how it has the thread make the calls that receive a file
// (PTRACE_SYSCALL, to stop again when they return).
constexpr long kPtracePlatformRequests[] = {PTRACE_GETREGS, PTRACE_SETREGS,    PTRACE_PEEKUSER,
                                            PTRACE_SYSCALL, PTRACE_GETSIGMASK, PTRACE_SETSIGMASK};

}  // namespace

std::span<const std::string_view> SupervisorSyscalls() { return kAllowed; }

Result<void> ConfineSupervisor(const Confinement& confinement) {
  seccomp::SeccompContext ctx(seccomp_init(SCMP_ACT_ERRNO(EPERM)));
  if (!ctx) return Fail("seccomp_init");
  // Another architecture's syscalls (int 0x80, x32) kill: the supervisor
  // never makes them.
  if (seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0) {
    return Fail("seccomp: the bad-architecture action");
  }
  for (std::string_view name : kAllowed) {
    const int number = seccomp_syscall_resolve_name(std::string(name).c_str());
    if (number == __NR_SCMP_ERROR) return Fail(StrCat("seccomp: unknown syscall ", name));
    if (seccomp_rule_add(ctx.get(), SCMP_ACT_ALLOW, number, 0) != 0) {
      return Fail(StrCat("seccomp: allow ", name));
    }
  }
  for (const ArgumentRule& rule : kWithArguments) RETURN_IF_ERROR(AddArgumentRule(ctx.get(), rule));
  if (confinement.resolves_names) {
    for (const ArgumentRule& rule : kResolverSockets) {
      RETURN_IF_ERROR(AddArgumentRule(ctx.get(), rule));
    }
  }
  std::vector<long> requests(std::begin(kPtraceRequests), std::end(kPtraceRequests));
  if (confinement.traces_workload) {
    requests.insert(requests.end(), std::begin(kPtracePlatformRequests),
                    std::end(kPtracePlatformRequests));
  }
  for (long request : requests) {
    if (seccomp_rule_add(ctx.get(), SCMP_ACT_ALLOW, SCMP_SYS(ptrace), 1,
                         SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(request))) != 0) {
      return Fail(StrCat("seccomp: allow ptrace request ", request));
    }
  }
  ASSIGN_OR_RETURN(std::vector<sock_filter> program, seccomp::ExportBpf(ctx.get()));
  // TSYNC: the audit writer's thread is confined with the loop's.
  seccomp::CompiledFilter filter{.program = std::move(program), .flags = SECCOMP_FILTER_FLAG_TSYNC};
  ASSIGN_OR_RETURN(UniqueFd none, seccomp::LoadSeccomp(filter));
  // Building the filter left libseccomp's freed memory in the heap; give it
  // back, since the supervisor idles beside the container from here on.
  ::malloc_trim(0);
  return {};
}

}  // namespace vigil::supervisor
