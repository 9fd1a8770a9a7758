// The sentry's syscall table (docs/design.md): for every x86_64 system call,
// its tier, the BPF guard or sentry handler that applies, and a one-line
// note. The BPF program, `vigil syscalls`, the features document and the
// invariant tests are all derived from it.
#pragma once

#include <sys/syscall.h>

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace vigil::sentry {

enum class Tier : std::uint8_t {
  kFast,      // BPF allows it; the kernel runs it at full speed
  kMediated,  // BPF notifies the sentry, which answers (SECCOMP_RET_USER_NOTIF)
  kTraced,    // ptrace sees it (SECCOMP_RET_TRACE, PTRACE_EVENT_EXEC)
  kDenied,    // BPF refuses it with `deny_errno`
};

// A condition on register arguments that BPF checks for a fast-path syscall.
// Registers are copied by the kernel before the filter runs, so a guard has
// no time-of-check/time-of-use gap (unlike anything read from memory).
enum class Guard : std::uint8_t {
  kNone,
  kCloneNoNamespaces,  // clone: any CLONE_NEW* flag -> EPERM
  kSeccompNoListener,  // seccomp: SECCOMP_FILTER_FLAG_NEW_LISTENER -> EPERM
  // socket: AF_UNIX, AF_INET/6 stream or datagram, NETLINK_ROUTE only;
  // on a mediated entry, NETLINK_ROUTE is the one mediated, the rest fast.
  kSocketFamilies,
  kWithAddress,  // sendto: mediated only with a destination (arg 4), else fast
  // ioctl: on a mediated entry, only the command types ('f', 'v', 'X') of
  // those that change a file's inode through any descriptor of it (arg 1's
  // low 32 bits, all the kernel reads); every other command stays fast.
  kInodeIoctlTypes,
  // setsockopt: on a mediated entry, only the IP and IPv6 levels (arg 1's
  // low 32 bits), where the options that send a packet to another address
  // first are (IP_OPTIONS' source routes, IPv6 routing headers); every
  // other level stays fast.
  kRoutingOptionLevels,
  // open, openat: where reads are the kernel's (FilterOptions.mediate_reads
  // off), mediated only when the flags (arg 1, arg 2) ask to write, create
  // or truncate; a read-only open stays fast.
  kWriteOpens,
};

// When a mediated syscall is mediated: always, or only when the sandbox's
// policy restricts what it governs (otherwise it runs on the fast path and
// costs nothing).
enum class Scope : std::uint8_t {
  kAlways,
  kNetworkPolicy,  // the policy restricts egress or unix sockets
  kFilePolicy,     // the policy restricts files (a default or a rule other than write)
  // A lookup or read of a file (stat, access, readlink, getdents, ...):
  // mediated only when the policy restricts files and must also decide or
  // audit reads (FilterOptions.mediate_reads).
  kFileReads,
  // A syscall naming other processes by pid: refused where those can be
  // outside the container (it shares or joins a pid namespace: the host's
  // processes may be nameable), the kernel's own where the container has a
  // pid namespace of its own and every pid it names is one of its own.
  kOutsidePids,
};

// The sentry handler serving a mediated syscall, one per row of
// handlers.def.
enum class Handler : std::uint8_t {
  kNone,
#define VIGIL_HANDLER(id, ...) k##id,
#include "sentry/table/handlers.def"
};

// What a call that a handler lets through changes (SECCOMP_USER_NOTIF_FLAG_
// CONTINUE, decided on registers only) and the sentry must forget about the
// threads it acts for (KnownThreads::Observe).
enum class Changes : std::uint8_t {
  kNothing,
  kProcess,      // exec: the memory, credentials and executable of the process
  kCredentials,  // the caller's ids, groups, capabilities or umask
  kPersonality,  // the execution domain uname must follow
  kRoot,         // the root that paths resolve from
};

// The open flags that make an open more than a read: an access mode other
// than O_RDONLY (O_WRONLY, O_RDWR, and 3, which asks for both), O_CREAT,
// O_TRUNC and O_TMPFILE's own bit (glibc's O_TMPFILE adds O_DIRECTORY, which
// every opendir asks for).
inline constexpr std::uint64_t kWriteOpenFlags = 03 | 0100 | 01000 | 020000000;

// Which argument of open (2: its second) or openat (its third) holds the
// flags, for the entries guarded by kWriteOpens.
inline unsigned OpenFlagsArgument(int number) { return number == SYS_open ? 1 : 2; }

struct SyscallEntry {
  int number = -1;
  std::string_view name;
  Tier tier = Tier::kDenied;
  Guard guard = Guard::kNone;
  Scope scope = Scope::kAlways;
  Handler handler = Handler::kNone;
  int deny_errno = 0;  // kDenied only
  std::string_view note;
};

// Every x86_64 syscall the kernel defines, sorted by number.
std::span<const SyscallEntry> SyscallTable();

// nullptr for a number or name the table does not hold.
const SyscallEntry* FindSyscall(int number);
const SyscallEntry* FindSyscall(std::string_view name);

// Whether syscall `number` with `args` only looks at files: a kFileReads
// entry, or an open or openat whose flags ask for nothing of
// kWriteOpenFlags. What `audit: "actions"` leaves out.
bool OnlyLooks(int number, const std::array<std::uint64_t, 6>& args);

std::string_view NameOf(Tier tier);
std::string_view NameOf(Handler handler);  // handlers.def's name; "" for kNone
Changes ChangesOf(Handler handler);

// What the sentry's filter for one sandbox mediates beyond kAlways.
struct FilterOptions {
  bool mediate_network = false;
  bool mediate_files = false;
  // Reads and lookups of files go to the sentry too: the policy hides or
  // denies some file, or audits every read (config::MediatesReads). Off,
  // they are the kernel's, and only calls that change files are mediated.
  bool mediate_reads = false;
  // The ptrace platform: mediated syscalls stop the thread for its tracer
  // (SECCOMP_RET_TRACE) instead of notifying a listener.
  bool traced = false;
  // The container has a pid namespace of its own (Scope::kOutsidePids).
  bool own_pid_namespace = false;
  bool operator==(const FilterOptions&) const = default;
};

// `entry`'s tier in a sandbox with `options`: a scoped entry whose scope is
// off runs on the fast path (a mediated one goes to the kernel unwatched, a
// denied one is the kernel's to judge).
Tier EffectiveTier(const SyscallEntry& entry, const FilterOptions& options);

}  // namespace vigil::sentry
