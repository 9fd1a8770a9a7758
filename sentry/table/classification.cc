#include "sentry/table/classification.h"

#include <cerrno>

namespace vigil::sentry {
namespace {

using Names = std::vector<std::string_view>;

}  // namespace

// Denied first: what must never reach the host kernel, and why. Then the
// mediated syscalls with their handlers, the guarded fast path, and the
// plain fast path by family.
const std::vector<SyscallGroup>& SyscallGroups() {
  static const std::vector<SyscallGroup> kGroups = {
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
      {Tier::kMediated, Guard::kNone, Scope::kAlways, Handler::kUname, 0,
       "answered from the sandbox: its hostname and domainname, the configured kernel release",
       Names{
          "uname"}},
      {Tier::kMediated, Guard::kNone, Scope::kAlways, Handler::kSysinfo, 0,
       "answered from the container: memory from its cgroup limit and usage, uptime from its start",
       Names{
          "sysinfo"}},
      {Tier::kMediated, Guard::kNone, Scope::kAlways, Handler::kCredentials, 0,
       "changes the caller's credentials: let through as asked once the sentry has forgotten the ones it acts with",
       Names{
          "setuid", "setgid", "setreuid", "setregid", "setgroups", "setresuid", "setresgid",
          "setfsuid", "setfsgid", "capset", "umask"}},
      {Tier::kMediated, Guard::kNone, Scope::kAlways, Handler::kExec, 0,
       "checked at entry against the exec policy on the file the path resolves to, then let through once the sentry has forgotten the process's memory, credentials and executable; under an exec policy the mapped file is verified at PTRACE_EVENT_EXEC and another one killed before it runs",
       Names{
          "execve", "execveat"}},
      {Tier::kMediated, Guard::kNone, Scope::kAlways, Handler::kPersonality, 0,
       "let through as asked; once a process sets one, uname reads each caller's execution domain",
       Names{
          "personality"}},
      {Tier::kMediated, Guard::kNone, Scope::kAlways, Handler::kChroot, 0,
       "needs CAP_SYS_CHROOT and stays inside the container's mount namespace; let through once the sentry has forgotten the roots paths resolve from (the policy still names files from the container's root)",
       Names{
          "chroot"}},
      {Tier::kFast, Guard::kCloneNoNamespaces, Scope::kAlways, Handler::kNone, 0,
       "fork and threads; namespace flags are refused (EPERM)",
       Names{
          "clone"}},
      {Tier::kFast, Guard::kSeccompNoListener, Scope::kAlways, Handler::kNone, 0,
       "a workload may add its own filters; SECCOMP_FILTER_FLAG_NEW_LISTENER is refused (EPERM)",
       Names{
          "seccomp"}},
      {Tier::kMediated, Guard::kSocketFamilies, Scope::kAlways, Handler::kSocket, 0,
       "fast but for NETLINK_ROUTE, which the sentry opens read-only in the container's network (no CAP_NET_ADMIN as opener) and installs with ADDFD; AF_PACKET is refused (EAFNOSUPPORT), other netlink protocols (EPROTONOSUPPORT), raw IP sockets (EPERM)",
       Names{
          "socket"}},
      {Tier::kMediated, Guard::kInodeIoctlTypes, Scope::kFilePolicy, Handler::kIoctl, 0,
       "on descriptors already held, fast but for the command types of those that change a file's inode through any descriptor of it (the kernel asks for ownership, not for write access): FS_IOC_SETFLAGS, FS_IOC_SETVERSION, FS_IOC_FSSETXATTR and EXT4_IOC_MIGRATE are decided on the descriptor's file like chmod and performed by the sentry, FS_IOC_ENABLE_VERITY and FS_IOC_SET_ENCRYPTION_POLICY refused (EOPNOTSUPP), the rest of those types let through as asked; TIOCSTI cannot reach the host terminal because the container runs in its own session (setsid)",
       Names{
          "ioctl"}},
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
          "getpeername", "socketpair", "setsockopt", "getsockopt", "accept4", "recvmmsg"}},
      {Tier::kMediated, Guard::kWriteOpens, Scope::kFilePolicy, Handler::kOpen, 0,
       "resolved in the container's root, decided on the opened file against the file policy, reopened with the workload's credentials and installed with ADDFD (on the ptrace platform, through the descriptor channel); where reads are the kernel's (a policy that hides and denies nothing and does not audit reads), only opens that write, create or truncate",
       Names{
          "open", "openat"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kOpen, 0,
       "served like open with O_CREAT|O_WRONLY|O_TRUNC",
       Names{
          "creat"}},
      {Tier::kMediated, Guard::kNone, Scope::kFileReads, Handler::kStat, 0,
       "resolved and decided like open (a hidden file does not exist); the sentry stats the file it resolved to",
       Names{
          "stat", "lstat", "newfstatat", "statx"}},
      {Tier::kMediated, Guard::kNone, Scope::kFileReads, Handler::kAccess, 0,
       "resolved and decided like open (a read-only file is not writable, a hidden one does not exist); checked as the workload's real or effective ids",
       Names{
          "access", "faccessat", "faccessat2"}},
      {Tier::kMediated, Guard::kNone, Scope::kFileReads, Handler::kReadlink, 0,
       "the link resolved like open without following it, decided on its own path, read by the sentry",
       Names{
          "readlink", "readlinkat"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kCreate, 0,
       "the directory resolved as the workload, the policy decided on directory + name, created there by name with the workload's credentials; device nodes: EPERM under a policy that restricts files, else left to the kernel (the device cgroup decides their use)",
       Names{
          "mkdir", "mkdirat", "mknod", "mknodat", "symlink", "symlinkat"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kRemove, 0,
       "decided like a create: a name the workload may only read is not its to remove",
       Names{
          "unlink", "unlinkat", "rmdir"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kRename, 0,
       "both names decided like a create; a directory moves only if the policy grants write to its whole tree (else EXDEV: mv copies)",
       Names{
          "rename", "renameat", "renameat2"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kLink, 0,
       "a new name for a file the workload may write, decided like a create, linked from the file the sentry resolved; linkat(fd, \"\", AT_EMPTY_PATH) is left to the kernel under a policy that restricts no file",
       Names{
          "link", "linkat"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kAttributes, 0,
       "resolved like open (or the descriptor's file), changed only where the policy grants write, by the sentry with the workload's credentials",
       Names{
          "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
          "truncate", "utime", "utimes", "futimesat", "utimensat"}},
      {Tier::kMediated, Guard::kNone, Scope::kFileReads, Handler::kGetdents, 0,
       "read by the sentry through the workload's own descriptor; entries the policy hides are left out",
       Names{
          "getdents", "getdents64"}},
      {Tier::kMediated, Guard::kNone, Scope::kFileReads, Handler::kXattr, 0,
       "resolved like open: reading needs a file the workload may see; done by the sentry on the file it resolved",
       Names{
          "getxattr", "lgetxattr", "listxattr", "llistxattr"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kXattr, 0,
       "resolved like open (or the descriptor's file): changing an attribute needs a file the workload may write; done by the sentry on the file it resolved",
       Names{
          "setxattr", "lsetxattr", "removexattr", "lremovexattr", "fsetxattr", "fremovexattr"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kFallBack, 0,
       "refused with ENOSYS under a file policy: callers fall back to getxattr and the like",
       Names{
          "getxattrat", "setxattrat", "listxattrat", "removexattrat"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kFallBack, 0,
       "refused with ENOSYS under a file policy (file_setattr would change a file the policy keeps read-only, file_getattr tell a hidden one exists): callers fall back to the FS_IOC_FSGETXATTR ioctl",
       Names{
          "file_getattr", "file_setattr"}},
      {Tier::kMediated, Guard::kNone, Scope::kFileReads, Handler::kFallBack, 0,
       "refused with ENOSYS where reads are mediated (its handle would tell a hidden file exists, and name it beyond the policy's reach): callers treat file handles as unsupported and use paths",
       Names{
          "name_to_handle_at"}},
      {Tier::kMediated, Guard::kNone, Scope::kFilePolicy, Handler::kOpen, 0,
       "served like openat: open_how copied once and checked as the kernel does; its RESOLVE_* flags narrow the sentry's walk (RESOLVE_BENEATH and RESOLVE_IN_ROOT walk from the dirfd, checked to be the container's own)",
       Names{
          "openat2"}},
      {Tier::kMediated, Guard::kNone, Scope::kNetworkPolicy, Handler::kConnect, 0,
       "decided on the copied address against the egress policy, performed on the workload's socket; under a policy that refuses no address, left to the kernel for a thread without CAP_NET_ADMIN",
       Names{
          "connect"}},
      {Tier::kMediated, Guard::kWithAddress, Scope::kNetworkPolicy, Handler::kSendto, 0,
       "with a destination: decided like connect and sent by the sentry (or left to the kernel as connect is); without one, fast",
       Names{
          "sendto"}},
      {Tier::kMediated, Guard::kNone, Scope::kNetworkPolicy, Handler::kSendmsg, 0,
       "the message is copied once; its destination, if any, decided like connect; descriptors passed along (or left to the kernel as connect is)",
       Names{
          "sendmsg"}},
      {Tier::kMediated, Guard::kNone, Scope::kNetworkPolicy, Handler::kSendmmsg, 0,
       "refused with ENOSYS where the sentry sends: libc falls back to sendto/sendmsg; left to the kernel as connect is",
       Names{
          "sendmmsg"}},
      {Tier::kMediated, Guard::kNone, Scope::kNetworkPolicy, Handler::kBind, 0,
       "decided on the copied address (an IP address by the allow-list, a unix socket by network.unix) and performed on the workload's socket; a unix path is created as the workload in the directory resolved in the container, under the file policy, and named /proc/self/fd/N/NAME (ENAMETOOLONG past 108 bytes); under a policy that refuses no address and restricts no file, left to the kernel; without a network policy, fast (Landlock bounds the path)",
       Names{
          "bind"}},
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
      {Tier::kMediated, Guard::kNone, Scope::kFileReads, Handler::kStatfs, 0,
       "resolved and decided like stat (a hidden path has no filesystem); the sentry asks fstatfs of the file it resolved",
       Names{
          "statfs"}},
      {Tier::kMediated, Guard::kNone, Scope::kFileReads, Handler::kInotifyWatch, 0,
       "resolved and decided like stat (a hidden directory's events would name its files); the watch is added on the workload's inotify descriptor to the file the sentry resolved, with the workload's credentials",
       Names{
          "inotify_add_watch"}},
      {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
       "names a path (or a mount or device), resolved by the kernel in the workload's own root: under a file policy chdir tells whether a hidden directory exists and makes it the working directory, from which every mediated call is still decided on what it resolves to (a task's working directory can only be set by itself, so the sentry cannot make a chdir it decided); the others name mounts and devices, not files",
       Names{
          "getcwd", "chdir", "ustat", "sysfs", "statmount", "listmount"}},
      {Tier::kFast, Guard::kNone, Scope::kAlways, Handler::kNone, 0,
       "entered only from the kernel's uprobe trampolines, which the host installs",
       Names{
          "uretprobe", "uprobe"}},
  };
  return kGroups;
}

}  // namespace vigil::sentry
