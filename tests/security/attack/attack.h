// The escape battery's attack program: one static binary copied into every
// container's rootfs at /attack, one subcommand per attack. Each attack prints
// one JSON line {"attack", "result": "CONTAINED"|"ESCAPED", "detail"} and the
// harness (tests/security/run) checks the host side as well.
//
// Every attack must be harmless on this machine even when it escapes: writes
// go only to a marker directory the harness created, privileged syscalls get
// arguments the kernel rejects after its permission check (so EPERM means the
// sandbox stopped it and EINVAL means the kernel's own check was reached),
// device nodes are opened read-only and nothing is read from them that
// matters, and every loop is bounded in iterations and time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace vigil::security {

// What the harness tells the attack, through process.env (VIGIL_SEC_*).
struct Context {
  std::string secret;      // host path of a file holding "VIGIL-SECRET-<token>"
  std::string marker;      // host directory that must stay empty
  int port = 0;            // a TCP listener on the host's 127.0.0.1
  std::string abstract;    // an abstract unix socket bound on the host
  std::uint64_t caps = 0;  // the most capabilities the config grants
  long pids_limit = 0;     // linux.resources.pids.limit (0: not set)
  long memory_limit = 0;   // linux.resources.memory.limit in bytes
  long tmpfs_size = 0;     // size of the tmpfs on /tmp in bytes
  int cpu_percent = 0;     // cpu quota / period in percent
};

// One attack's verdict.
struct Outcome {
  bool escaped = false;
  std::string detail;
};

inline Outcome Contained(std::string detail) { return {false, std::move(detail)}; }
inline Outcome Escaped(std::string detail) { return {true, std::move(detail)}; }

using AttackFn = Outcome (*)(const Context&);

// One row of the attack table: the subcommand and what it tries.
struct Attack {
  std::string_view name;
  AttackFn fn;
  std::string_view summary;
};

// The attack tables, one per family (fs_attacks.cc, kernel_attacks.cc, ...).
const std::vector<Attack>& FsAttacks();
const std::vector<Attack>& KernelAttacks();
const std::vector<Attack>& NetAttacks();
const std::vector<Attack>& ProcessAttacks();
const std::vector<Attack>& ResourceAttacks();
const std::vector<Attack>& InterpreterAttacks();
const std::vector<Attack>& LeftToKernelAttacks();
const std::vector<Attack>& DeputyAttacks();

// `/attack true forbidden-ran`: what the forbidden copy of exec-path-flip
// is run as; it exits with kForbiddenRan (busybox's true, the allowed
// binary, ignores the argument and exits 0).
inline constexpr const char* kForbiddenRanArg = "forbidden-ran";
inline constexpr int kForbiddenRan = 42;

// A 64-bit ELF executable of a few hundred bytes that exits with
// `exit_code`, naming `interpreter` in a PT_INTERP program header if given
// (interpreter_attacks.cc). `/attack tiny-elf PATH` writes one that exits
// with kForbiddenRan, for the harness to put in a rootfs.
std::string TinyElf(std::optional<std::string> interpreter, int exit_code);

// --- helpers shared by the families (common.cc) ---------------------------

// "EPERM (Operation not permitted)".
std::string ErrnoText(int err);
// True for the errors that mean "the sandbox refused": EPERM, EACCES, ENOSYS.
bool IsRefusal(int err);

// Reads up to 256 bytes of `path` relative to `dirfd`; true (and the text in
// *got) when it is the harness's secret, i.e. starts with "VIGIL-SECRET-".
bool ReadsSecret(int dirfd, const std::string& path, std::string* got = nullptr);
// `../` repeated `n` times.
std::string DotDots(int n);

// How a function run in a forked child ended.
struct ChildResult {
  bool exited = false;  // returned normally (ret/err valid)
  long ret = -1;        // the function's return value
  int err = 0;          // errno after it
  int signal = 0;       // the signal that killed the child, if any
  bool timed_out = false;
  std::string Describe() const;  // "returned 0", "EPERM (...)", "killed by SIGSYS"
};

// Runs `fn` in a forked child (so a SIGSYS kill, a namespace change or a
// chroot does not touch the attack process) and waits at most `timeout_ms`.
ChildResult InChild(const std::function<long()>& fn, int timeout_ms = 5000);

// Milliseconds on CLOCK_MONOTONIC.
long long NowMs();

// The second thread of a race between a check and a use: calls `flip(i)`
// for i = 0, 1, ... from construction until destruction.
class Flipper {
 public:
  explicit Flipper(std::function<void(long)> flip);
  ~Flipper();
  Flipper(const Flipper&) = delete;
  Flipper& operator=(const Flipper&) = delete;
  long flips() const { return flips_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<long> flips_{0};
  std::thread thread_;  // last: starts once the counters exist
};

}  // namespace vigil::security
