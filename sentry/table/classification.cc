#include "sentry/table/classification.h"

#include <cerrno>

namespace vigil::sentry {
namespace {

using Names = std::vector<std::string_view>;

}  // namespace

// Denied first: what must never reach the host kernel, and why. Then the
// guarded fast path and the plain fast path by family. The mediated
// syscalls, with their handlers, come from handlers.def.
const std::vector<SyscallGroup>& SyscallGroups() {
  static const std::vector<SyscallGroup> kGroups = [] {
    std::vector<SyscallGroup> groups = {
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, ENOSYS,
         "not implemented by Linux on x86_64; ENOSYS as natively",
         Names{
            "uselib", "_sysctl", "create_module", "get_kernel_syms", "query_module",
            "nfsservctl", "getpmsg", "putpmsg", "afs_syscall", "tuxcall", "security",
            "epoll_ctl_old", "epoll_wait_old", "vserver"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, ENOSYS,
         "io_uring performs file and network operations the sentry cannot see; ENOSYS so libraries fall back to plain syscalls",
         Names{
            "io_uring_setup", "io_uring_enter", "io_uring_register"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "lets a process stall the kernel mid-copy, a staple of kernel exploits",
         Names{
            "userfaultfd"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "the sentry is the only tracer; a workload tracing a sibling could rewrite its syscalls",
         Names{
            "ptrace"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "reads or writes another process's memory",
         Names{
            "process_vm_readv", "process_vm_writev"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "acts on or inspects another process",
         Names{
            "kcmp", "pidfd_getfd", "process_madvise", "process_mrelease"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "loads programs into the kernel",
         Names{
            "bpf"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "kernel profiling interface: information leaks and a large attack surface",
         Names{
            "perf_event_open"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "the kernel keyring is not namespaced",
         Names{
            "add_key", "request_key", "keyctl"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "kernel modules",
         Names{
            "init_module", "delete_module", "finit_module"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "replaces or stops the host kernel",
         Names{
            "reboot", "kexec_load", "kexec_file_load"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "the mount table is fixed once the container runs",
         Names{
            "pivot_root", "mount", "umount2", "open_tree", "move_mount", "fsopen", "fsconfig",
            "fsmount", "fspick", "mount_setattr", "open_tree_attr"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "namespaces are fixed once the container runs",
         Names{
            "unshare", "setns"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, ENOSYS,
         "its flags live in memory that BPF cannot check; ENOSYS makes libc fall back to clone",
         Names{
            "clone3"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "host swap",
         Names{
            "swapon", "swapoff"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "host process accounting",
         Names{
            "acct"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "the host kernel log",
         Names{
            "syslog"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "the host clock is not namespaced",
         Names{
            "adjtimex", "settimeofday", "clock_settime", "clock_adjtime"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "host filesystem quotas",
         Names{
            "quotactl", "quotactl_fd"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "a profiling interface that names host paths",
         Names{
            "lookup_dcookie"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "hangs up the controlling terminal of the host session",
         Names{
            "vhangup"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "raw I/O port access",
         Names{
            "iopl", "ioperm"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "16-bit segments: rarely needed, repeatedly exploited",
         Names{
            "modify_ldt"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "opens any inode on a filesystem by handle, bypassing the container's root (the 'shocker' escape)",
         Names{
            "open_by_handle_at"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "filesystem-wide event monitoring",
         Names{
            "fanotify_init", "fanotify_mark"}},
        {Tier::kDenied, Guard::kNone, Scope::kAlways, Handler::kNone, EPERM,
         "changes the security-module label",
         Names{
            "lsm_set_self_attr"}},
        {Tier::kFast, Guard::kCloneNoNamespaces, Scope::kAlways, Handler::kNone, 0,
         "fork and threads; namespace flags are refused (EPERM)",
         Names{
            "clone"}},
        {Tier::kFast, Guard::kSeccompNoListener, Scope::kAlways, Handler::kNone, 0,
         "a workload may add its own filters; SECCOMP_FILTER_FLAG_NEW_LISTENER is refused (EPERM)",
         Names{
            "seccomp"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "I/O on a descriptor the workload already holds",
         Names{
            "read", "write", "close", "fstat", "lseek", "pread64", "pwrite64", "readv",
            "writev", "dup", "dup2", "sendfile", "fcntl", "flock", "fsync", "fdatasync",
            "ftruncate", "fchdir", "fstatfs", "sync",
            "readahead", "fgetxattr", "flistxattr",
            "fadvise64", "splice", "tee", "sync_file_range", "vmsplice", "fallocate", "dup3",
            "preadv", "pwritev", "syncfs", "copy_file_range", "preadv2", "pwritev2",
            "close_range", "cachestat"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "descriptors that name no path and no address",
         Names{
            "poll", "pipe", "select", "epoll_create", "epoll_wait", "epoll_ctl",
            "inotify_init", "inotify_rm_watch", "pselect6", "ppoll", "epoll_pwait",
            "signalfd", "timerfd_create", "eventfd", "timerfd_settime", "timerfd_gettime",
            "signalfd4", "eventfd2", "epoll_create1", "pipe2", "inotify_init1",
            "memfd_create", "epoll_pwait2", "memfd_secret"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "the process's own memory",
         Names{
            "mmap", "mprotect", "munmap", "brk", "mremap", "msync", "mincore", "madvise",
            "mlock", "munlock", "mlockall", "munlockall", "remap_file_pages", "mbind",
            "set_mempolicy", "get_mempolicy", "migrate_pages", "move_pages", "membarrier",
            "mlock2", "pkey_mprotect", "pkey_alloc", "pkey_free", "set_mempolicy_home_node",
            "map_shadow_stack", "mseal"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "threads and synchronisation",
         Names{
            "arch_prctl", "futex", "set_thread_area", "get_thread_area", "set_tid_address",
            "restart_syscall", "set_robust_list", "get_robust_list", "rseq", "futex_waitv",
            "futex_wake", "futex_wait", "futex_requeue"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "signals; the pid namespace bounds who can be signalled",
         Names{
            "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "pause", "kill",
            "rt_sigpending", "rt_sigtimedwait", "rt_sigqueueinfo", "rt_sigsuspend",
            "sigaltstack", "tkill", "tgkill", "rt_tgsigqueueinfo", "pidfd_send_signal",
            "pidfd_open"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "time (reading only; setting the clock is denied)",
         Names{
            "nanosleep", "getitimer", "alarm", "setitimer", "gettimeofday", "times", "time",
            "timer_create", "timer_settime", "timer_gettime", "timer_getoverrun",
            "timer_delete", "clock_gettime", "clock_getres", "clock_nanosleep"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "identity and process attributes",
         Names{
            "getpid", "getrlimit", "getrusage", "getuid", "getgid", "geteuid",
            "getegid", "getppid", "getpgrp", "getgroups", "getresuid", "getresgid", "getpgid",
            "getsid", "capget", "getpriority", "sched_getparam",
            "sched_getscheduler", "sched_get_priority_max", "sched_get_priority_min",
            "sched_rr_get_interval", "prctl", "gettid", "sched_getaffinity", "ioprio_get",
            "getcpu", "sched_getattr", "getrandom", "lsm_get_self_attr", "lsm_list_modules"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "changes the caller's own attributes within its capabilities and the container's limits",
         Names{
            "sched_yield", "setpgid", "setsid", "setpriority", "sched_setparam", "sched_setscheduler", "setrlimit",
            "sched_setaffinity", "ioprio_set", "prlimit64", "sched_setattr"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "the container's own UTS namespace",
         Names{
            "sethostname", "setdomainname"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "process lifetime",
         Names{
            "fork", "vfork", "exit", "wait4", "exit_group", "waitid"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "sockets the workload already holds; nothing leaves without connect or an address",
         Names{
            "accept", "recvfrom", "recvmsg", "shutdown", "listen", "getsockname",
            "getpeername", "socketpair", "getsockopt", "accept4", "recvmmsg"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "System V and POSIX IPC, bounded by the container's IPC namespace",
         Names{
            "shmget", "shmat", "shmctl", "semget", "semop", "semctl", "shmdt", "msgget",
            "msgsnd", "msgrcv", "msgctl", "semtimedop", "mq_open", "mq_unlink",
            "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "Linux AIO on descriptors already held",
         Names{
            "io_setup", "io_destroy", "io_getevents", "io_submit", "io_cancel",
            "io_pgetevents"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "a workload may confine itself further",
         Names{
            "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "names a path (or a mount or device), resolved by the kernel in the workload's own root: under a file policy chdir tells whether a hidden directory exists and makes it the working directory, from which every mediated call is still decided on what it resolves to (a task's working directory can only be set by itself, so the sentry cannot make a chdir it decided); the others name mounts and devices, not files",
         Names{
            "getcwd", "chdir", "ustat", "sysfs", "statmount", "listmount"}},
        {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
         "entered only from the kernel's uprobe trampolines, which the host installs",
         Names{
            "uretprobe", "uprobe"}},
    };
#define VIGIL_ALSO_SERVES(id, scope, guard, note, ...)                                   \
  groups.push_back({Tier::kMediated, Guard::guard, Scope::scope, Handler::k##id, 0, note, \
                    Names{__VA_ARGS__}});
#define VIGIL_HANDLER(id, name, scope, guard, changes, note, ...) \
  VIGIL_ALSO_SERVES(id, scope, guard, note, __VA_ARGS__)
#include "sentry/table/handlers.def"
    return groups;
  }();
  return kGroups;
}

}  // namespace vigil::sentry
