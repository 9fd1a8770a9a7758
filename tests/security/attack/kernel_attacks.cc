// Kernel interfaces a container must not reach. Every call carries arguments
// the kernel rejects after its permission check, so the errno tells who
// stopped it: EPERM/EACCES/ENOSYS or a SIGSYS kill is the sandbox (or the
// missing capability); any other answer means the permission check passed.
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <signal.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "attack.h"

namespace vigil::security {
namespace {

// A privileged syscall with arguments the kernel rejects after its permission
// check, run in a child: refused (EPERM/EACCES/ENOSYS/SIGSYS) is contained,
// any other answer means the permission check passed.
Outcome Privileged(const std::string& what, const std::function<long()>& call) {
  ChildResult r = InChild(call);
  std::string detail = what + ": " + r.Describe();
  if (r.exited && (r.ret >= 0 || !IsRefusal(r.err))) return Escaped(detail);
  return Contained(detail);
}

// A call with valid arguments that returns an fd or an id: only success is
// an escape (ENODEV, EINVAL, ... from a kernel that lacks the feature is not).
Outcome Succeeds(const std::string& what, const std::function<long()>& call) {
  ChildResult r = InChild(call);
  std::string detail = what + ": " + r.Describe();
  if (r.exited && r.ret >= 0) return Escaped(detail);
  return Contained(detail);
}

Outcome ModuleLoad(const Context&) {
  static const char garbage[64] = "not an ELF module";
  Outcome a = Privileged("init_module(garbage)",
                         [] { return ::syscall(SYS_init_module, garbage, sizeof garbage, ""); });
  Outcome b = Privileged("finit_module(/attack)", [] {
    int fd = ::open("/attack", O_RDONLY | O_CLOEXEC);
    return ::syscall(SYS_finit_module, fd, "", 0);
  });
  Outcome c = Privileged("delete_module(vsec_none)",
                         [] { return ::syscall(SYS_delete_module, "vsec_none", O_NONBLOCK); });
  std::string detail = a.detail + "; " + b.detail + "; " + c.detail;
  return a.escaped || b.escaped || c.escaped ? Escaped(detail) : Contained(detail);
}

Outcome Kexec(const Context&) {
  // Flags outside KEXEC_FLAGS: EINVAL right after the CAP_SYS_BOOT check.
  Outcome a = Privileged("kexec_load(invalid flags)",
                         [] { return ::syscall(SYS_kexec_load, 0UL, 0UL, nullptr, 0xdead0000UL); });
  Outcome b = Privileged("kexec_file_load(invalid flags)", [] {
    return ::syscall(SYS_kexec_file_load, -1, -1, 0UL, "", 0xdead0000UL);
  });
  std::string detail = a.detail + "; " + b.detail;
  return a.escaped || b.escaped ? Escaped(detail) : Contained(detail);
}

Outcome Reboot(const Context&) {
  // magic1 = 0 is invalid: EINVAL right after the CAP_SYS_BOOT check.
  return Privileged("reboot(invalid magic)",
                    [] { return ::syscall(SYS_reboot, 0, 0, LINUX_REBOOT_CMD_CAD_OFF, nullptr); });
}

Outcome Swapon(const Context&) {
  Outcome a = Privileged("swapon(nonexistent)",
                         [] { return ::syscall(SYS_swapon, "/vsec-nonexistent-swap", 0); });
  Outcome b = Privileged("swapoff(nonexistent)",
                         [] { return ::syscall(SYS_swapoff, "/vsec-nonexistent-swap"); });
  std::string detail = a.detail + "; " + b.detail;
  return a.escaped || b.escaped ? Escaped(detail) : Contained(detail);
}

Outcome Acct(const Context&) {
  return Privileged("acct(nonexistent)",
                    [] { return ::syscall(SYS_acct, "/vsec-nonexistent-acct"); });
}

// Reading the host's kernel log (SYSLOG_ACTION_READ_ALL does not consume it).
Outcome Syslog(const Context&) {
  ChildResult r = InChild([] {
    static char buf[4096];
    return static_cast<long>(::klogctl(3, buf, sizeof buf));
  });
  std::string detail = "syslog(READ_ALL): " + r.Describe();
  if (r.exited && r.ret > 0) return Escaped(detail + " bytes of the host kernel log");
  return Contained(detail);
}

Outcome Bpf(const Context&) {
  return Succeeds("bpf(PROG_LOAD socket filter)", [] {
    static bpf_insn prog[] = {
        {BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0},  // r0 = 0
        {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
    };
    static char license[] = "GPL";
    bpf_attr attr{};
    attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
    attr.insn_cnt = 2;
    attr.insns = reinterpret_cast<std::uint64_t>(prog);
    attr.license = reinterpret_cast<std::uint64_t>(license);
    return ::syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr);
  });
}

Outcome PerfEventOpen(const Context&) {
  return Succeeds("perf_event_open(self, sw cpu-clock, user only)", [] {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0UL);
  });
}

Outcome Userfaultfd(const Context&) {
  return Succeeds("userfaultfd(UFFD_USER_MODE_ONLY)",
                  [] { return ::syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY); });
}

// The keyring is not namespaced: the container's root would see host root's.
Outcome Keyctl(const Context&) {
  Outcome a = Succeeds("keyctl(GET_KEYRING_ID, user keyring)", [] {
    return ::syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0);
  });
  Outcome b = Succeeds("add_key(user, process keyring)", [] {
    return ::syscall(SYS_add_key, "user", "vsec-test", "x", 1, KEY_SPEC_PROCESS_KEYRING);
  });
  std::string detail = a.detail + "; " + b.detail;
  return a.escaped || b.escaped ? Escaped(detail) : Contained(detail);
}

// io_uring by raw syscalls: one IORING_OP_OPENAT of the host secret, which a
// sentry mediating openat never sees.
Outcome IoUring(const Context& c) {
  io_uring_params p{};
  int ring = static_cast<int>(::syscall(SYS_io_uring_setup, 4, &p));
  if (ring < 0) {
    int err = errno;
    std::string detail = "io_uring_setup: " + ErrnoText(err);
    return IsRefusal(err) ? Contained(detail) : Escaped(detail);
  }
  std::size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(std::uint32_t);
  std::size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
  auto* sq = static_cast<char*>(::mmap(nullptr, sq_size, PROT_READ | PROT_WRITE,
                                       MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING));
  auto* cq = static_cast<char*>(::mmap(nullptr, cq_size, PROT_READ | PROT_WRITE,
                                       MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING));
  auto* sqes = static_cast<io_uring_sqe*>(::mmap(nullptr, p.sq_entries * sizeof(io_uring_sqe),
                                                 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                                                 ring, IORING_OFF_SQES));
  if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
    ::close(ring);
    return Escaped("io_uring_setup succeeded (ring mmap failed: " + ErrnoText(errno) + ")");
  }
  std::string detail = "io_uring available";
  bool escaped = true;  // a working io_uring bypasses any path mediation
  const std::string paths[] = {c.secret, DotDots(40) + c.secret.substr(1)};
  for (const std::string& path : paths) {
    auto* tail = reinterpret_cast<std::atomic<std::uint32_t>*>(sq + p.sq_off.tail);
    auto* mask = reinterpret_cast<std::uint32_t*>(sq + p.sq_off.ring_mask);
    auto* array = reinterpret_cast<std::uint32_t*>(sq + p.sq_off.array);
    std::uint32_t t = tail->load(std::memory_order_acquire);
    io_uring_sqe& e = sqes[t & *mask];
    std::memset(&e, 0, sizeof e);
    e.opcode = IORING_OP_OPENAT;
    e.fd = AT_FDCWD;
    e.addr = reinterpret_cast<std::uint64_t>(path.c_str());
    e.open_flags = O_RDONLY | O_CLOEXEC;
    array[t & *mask] = t & *mask;
    tail->store(t + 1, std::memory_order_release);
    long n = ::syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0);
    if (n < 0) {
      detail += "; enter: " + ErrnoText(errno);
      break;
    }
    auto* head = reinterpret_cast<std::atomic<std::uint32_t>*>(cq + p.cq_off.head);
    auto* cmask = reinterpret_cast<std::uint32_t*>(cq + p.cq_off.ring_mask);
    auto* cqes = reinterpret_cast<io_uring_cqe*>(cq + p.cq_off.cqes);
    std::uint32_t h = head->load(std::memory_order_acquire);
    int res = cqes[h & *cmask].res;
    head->store(h + 1, std::memory_order_release);
    if (res >= 0) {
      std::string got;
      std::string self = "/proc/self/fd/" + std::to_string(res);
      bool secret = ReadsSecret(AT_FDCWD, self, &got);
      ::close(res);
      detail += "; OPENAT " + path.substr(0, 40) + ": " + got;
      if (secret) return Escaped(detail);
    } else {
      detail += "; OPENAT " + path.substr(0, 40) + ": " + ErrnoText(-res);
    }
  }
  ::close(ring);
  return escaped ? Escaped(detail + " (the host secret was not reached)") : Contained(detail);
}

// The i386 ABI through int 0x80: unshare(CLONE_NEWUSER) is i386 number 310
// (process_vm_readv's number on x86_64, which a filter ignoring the
// architecture would judge instead).
Outcome Int80(const Context&) {
  ChildResult r = InChild([]() -> long {
    long ret;
    asm volatile("int $0x80"
                 : "=a"(ret)
                 : "a"(310L), "b"(static_cast<long>(CLONE_NEWUSER))
                 : "memory");
    if (ret < 0 && ret > -4096) {
      errno = static_cast<int>(-ret);
      return -1;
    }
    return ret;
  });
  std::string detail = "int 0x80 unshare(CLONE_NEWUSER): " + r.Describe();
  if (r.exited && r.ret == 0) return Escaped(detail + ": a user namespace via the i386 ABI");
  return Contained(detail);
}

// The x32 ABI: the x86_64 number with bit 30 set.
Outcome X32(const Context&) {
  ChildResult r =
      InChild([]() -> long { return ::syscall(0x40000000L | SYS_unshare, CLONE_NEWUSER); });
  std::string detail = "x32 unshare(CLONE_NEWUSER): " + r.Describe();
  if (r.exited && r.ret == 0) return Escaped(detail + ": a user namespace via the x32 ABI");
  return Contained(detail);
}

// A user namespace gives every capability over the namespaces it owns — the
// door to most kernel exploits from containers; mount a tmpfs to prove it.
Outcome UsernsMount(const Context&) {
  ChildResult r = InChild([]() -> long {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return -1;
    if (::mount("none", "/tmp", "tmpfs", 0, nullptr) != 0) return 1;
    return 2;
  });
  if (r.exited && r.ret == 2) return Escaped("unshare(NEWUSER|NEWNS) and mount tmpfs: succeeded");
  if (r.exited && r.ret == 1) return Escaped("unshare(NEWUSER|NEWNS) succeeded, mount refused");
  return Contained("unshare(CLONE_NEWUSER|CLONE_NEWNS): " + r.Describe());
}

// clone3 and clone with namespace flags (a new user namespace needs no
// capability, so only the sandbox can stop it).
Outcome CloneNamespaces(const Context&) {
  std::string detail;
  bool escaped = false;
  auto one = [&](const std::string& what, const std::function<long()>& fn) {
    ChildResult r = InChild(fn);
    detail += what + ": " + r.Describe() + "; ";
    if (r.exited && r.ret > 0) escaped = true;
  };
  auto reap = [](long pid) -> long {
    if (pid == 0) ::_exit(0);  // the new child: leave at once
    if (pid > 0) ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
    return pid;
  };
  one("clone3(CLONE_NEWUSER)", [&] {
    clone_args args{};
    args.flags = CLONE_NEWUSER;
    args.exit_signal = SIGCHLD;
    return reap(::syscall(SYS_clone3, &args, sizeof args));
  });
  one("clone3(CLONE_NEWNS|CLONE_NEWPID)", [&] {
    clone_args args{};
    args.flags = CLONE_NEWNS | CLONE_NEWPID;
    args.exit_signal = SIGCHLD;
    return reap(::syscall(SYS_clone3, &args, sizeof args));
  });
  one("clone(CLONE_NEWUSER)",
      [&] { return reap(::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)); });
  one("unshare(CLONE_NEWNET)", [&]() -> long { return ::unshare(CLONE_NEWNET) == 0 ? 1 : -1; });
  return escaped ? Escaped(detail) : Contained(detail);
}

// A seccomp filter of the workload's own with a listener: with a pending
// kernel change a nested listener could answer before the sentry's.
Outcome NestedSeccompListener(const Context&) {
  ChildResult r = InChild([]() -> long {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    sock_filter insns[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog prog{static_cast<unsigned short>(sizeof insns / sizeof insns[0]), insns};
    return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  });
  std::string detail = "seccomp(NEW_LISTENER): " + r.Describe();
  if (r.exited && r.ret >= 0) return Escaped(detail + " (a listener fd)");
  return Contained(detail);
}

}  // namespace

const std::vector<Attack>& KernelAttacks() {
  static const std::vector<Attack> kAttacks = {
      {"module-load", ModuleLoad, "init_module, finit_module, delete_module"},
      {"kexec", Kexec, "kexec_load and kexec_file_load with invalid flags"},
      {"reboot", Reboot, "reboot with an invalid magic"},
      {"swapon", Swapon, "swapon/swapoff of a nonexistent file"},
      {"acct", Acct, "acct of a nonexistent file"},
      {"syslog", Syslog, "read the host kernel log (SYSLOG_ACTION_READ_ALL)"},
      {"bpf", Bpf, "load a trivial socket-filter program"},
      {"perf-event-open", PerfEventOpen, "a user-only software counter on itself"},
      {"userfaultfd", Userfaultfd, "userfaultfd(UFFD_USER_MODE_ONLY)"},
      {"keyctl", Keyctl, "the user keyring's id, add_key to the process keyring"},
      {"io-uring", IoUring, "io_uring OPENAT of the host secret"},
      {"int80-i386", Int80, "unshare(CLONE_NEWUSER) through int 0x80"},
      {"x32-abi", X32, "unshare(CLONE_NEWUSER) through the x32 ABI"},
      {"userns-mount", UsernsMount, "unshare(CLONE_NEWUSER|CLONE_NEWNS) then mount tmpfs"},
      {"clone-namespaces", CloneNamespaces,
       "clone3/clone with NEWUSER/NEWNS/NEWPID, unshare(NEWNET)"},
      {"nested-seccomp-listener", NestedSeccompListener, "seccomp(NEW_LISTENER) of its own"},
  };
  return kAttacks;
}

}  // namespace vigil::security
