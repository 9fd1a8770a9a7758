// Invariants of the syscall table: complete, consistent, and agreeing with
// libseccomp and the running kernel.
#include "sentry/table/syscall_table.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "sentry/table/classification.h"
#include "sentry/table/x86_64_syscalls.h"

namespace vigil::sentry {
namespace {

TEST(SyscallTable, EverySyscallIsClassifiedExactlyOnce) {
  std::multiset<std::string_view> classified;
  for (const SyscallGroup& group : SyscallGroups()) {
    classified.insert(group.names.begin(), group.names.end());
  }
  std::set<std::string_view> known;
  for (const SyscallNumber& syscall : X86_64Syscalls()) {
    known.insert(syscall.name);
    EXPECT_EQ(classified.count(syscall.name), 1u) << syscall.name;
  }
  for (std::string_view name : classified) EXPECT_TRUE(known.count(name)) << name;
  EXPECT_EQ(SyscallTable().size(), X86_64Syscalls().size());
}

TEST(SyscallTable, SortedByNumberWithoutDuplicates) {
  int previous = -1;
  for (const SyscallEntry& entry : SyscallTable()) {
    EXPECT_GT(entry.number, previous) << entry.name;
    previous = entry.number;
  }
}

TEST(SyscallTable, TierAndHandlerAgree) {
  for (const SyscallEntry& entry : SyscallTable()) {
    SCOPED_TRACE(entry.name);
    EXPECT_FALSE(entry.note.empty());
    EXPECT_EQ(entry.tier == Tier::kMediated, entry.handler != Handler::kNone);
    EXPECT_EQ(entry.tier == Tier::kDenied, entry.deny_errno != 0);
    // A mediated entry's guard keeps some of its calls on the fast path.
    if (entry.guard == Guard::kWithAddress || entry.guard == Guard::kSocketFamilies ||
        entry.guard == Guard::kInodeIoctlTypes || entry.guard == Guard::kWriteOpens ||
        entry.guard == Guard::kRoutingOptionLevels) {
      EXPECT_EQ(entry.tier, Tier::kMediated);
    } else if (entry.guard != Guard::kNone) {
      EXPECT_EQ(entry.tier, Tier::kFast);
    }
    // Scopes say when a policy's mediation applies, and kOutsidePids when
    // a denial does.
    if (entry.scope == Scope::kOutsidePids) {
      EXPECT_EQ(entry.tier, Tier::kDenied);
    } else if (entry.scope != Scope::kAlways) {
      EXPECT_EQ(entry.tier, Tier::kMediated);
    }
  }
}

TEST(SyscallTable, LookupByNumberAndName) {
  ASSERT_NE(FindSyscall(SYS_getppid), nullptr);
  EXPECT_EQ(FindSyscall(SYS_getppid)->name, "getppid");
  ASSERT_NE(FindSyscall("uname"), nullptr);
  EXPECT_EQ(FindSyscall("uname")->tier, Tier::kMediated);
  EXPECT_EQ(FindSyscall(400), nullptr);
  EXPECT_EQ(FindSyscall("no_such_call"), nullptr);
}

// The escape routes docs/design.md's denied tier names never reach the kernel.
TEST(SyscallTable, DangerousSyscallsAreDenied) {
  for (std::string_view name :
       {"io_uring_setup", "userfaultfd", "ptrace", "process_vm_writev", "bpf", "perf_event_open",
        "keyctl", "init_module", "finit_module", "kexec_load", "reboot", "mount", "fsopen",
        "open_tree", "unshare", "setns", "clone3", "open_by_handle_at", "pivot_root"}) {
    const SyscallEntry* entry = FindSyscall(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_EQ(entry->tier, Tier::kDenied) << name;
  }
}

// Reading a process's memory and comparing kernel objects are refused
// where the host's processes may be nameable, the kernel's to judge among
// the container's own; writing another process's memory never is.
TEST(SyscallTable, CrossProcessReadsFollowThePidNamespace) {
  for (std::string_view name : {"process_vm_readv", "kcmp"}) {
    const SyscallEntry* entry = FindSyscall(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_EQ(EffectiveTier(*entry, FilterOptions{}), Tier::kDenied) << name;
    EXPECT_EQ(EffectiveTier(*entry, FilterOptions{.own_pid_namespace = true}), Tier::kFast) << name;
  }
  const SyscallEntry* write = FindSyscall("process_vm_writev");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(EffectiveTier(*write, FilterOptions{.own_pid_namespace = true}), Tier::kDenied);
}

// What takes a path the workload names, and could tell a hidden file
// exists or change a read-only one, is mediated under a file policy: what
// only looks, when the policy must decide or audit reads.
TEST(SyscallTable, PathQueriesAreTheFilePolicys) {
  for (std::string_view name : {"file_getattr", "file_setattr", "getxattrat", "setxattr", "mkdir",
                                "unlink", "rename", "chmod", "truncate", "creat"}) {
    const SyscallEntry* entry = FindSyscall(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_EQ(entry->tier, Tier::kMediated) << name;
    EXPECT_EQ(entry->scope, Scope::kFilePolicy) << name;
  }
  for (std::string_view name : {"statfs", "inotify_add_watch", "name_to_handle_at", "newfstatat",
                                "getdents64", "getxattr", "readlink", "faccessat2"}) {
    const SyscallEntry* entry = FindSyscall(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_EQ(entry->tier, Tier::kMediated) << name;
    EXPECT_EQ(entry->scope, Scope::kFileReads) << name;
  }
  EXPECT_EQ(FindSyscall("file_setattr")->handler, Handler::kFallBack);
  EXPECT_EQ(FindSyscall("name_to_handle_at")->handler, Handler::kFallBack);
  EXPECT_EQ(FindSyscall("inotify_add_watch")->handler, Handler::kInotifyWatch);
}

// Where reads are the kernel's, lookups run fast and opens are mediated
// only when they write (the guard); where the policy decides reads, all are
// mediated.
TEST(SyscallTable, ReadsAreTheKernelsUnlessThePolicyDecidesThem) {
  const FilterOptions kernel_reads{.mediate_files = true, .mediate_reads = false};
  const FilterOptions sentry_reads{.mediate_files = true, .mediate_reads = true};
  for (std::string_view name : {"newfstatat", "statx", "getdents64", "readlink", "access"}) {
    EXPECT_EQ(EffectiveTier(*FindSyscall(name), kernel_reads), Tier::kFast) << name;
    EXPECT_EQ(EffectiveTier(*FindSyscall(name), sentry_reads), Tier::kMediated) << name;
  }
  for (std::string_view name : {"openat", "open", "creat", "openat2", "mkdir", "rename"}) {
    EXPECT_EQ(EffectiveTier(*FindSyscall(name), kernel_reads), Tier::kMediated) << name;
  }
  EXPECT_EQ(FindSyscall("openat")->guard, Guard::kWriteOpens);
  EXPECT_EQ(FindSyscall("openat2")->guard, Guard::kNone) << "its flags are memory";
  EXPECT_EQ(EffectiveTier(*FindSyscall("newfstatat"), FilterOptions{}), Tier::kFast);
}

// An open that asks only to read looks; one that writes, creates or
// truncates acts. What audit "actions" leaves out.
TEST(SyscallTable, OnlyLookingCalls) {
  EXPECT_TRUE(OnlyLooks(SYS_openat, {0, 0, O_RDONLY | O_CLOEXEC | O_DIRECTORY, 0, 0, 0}));
  EXPECT_TRUE(OnlyLooks(SYS_open, {0, O_RDONLY | O_PATH, 0, 0, 0, 0}));
  EXPECT_TRUE(OnlyLooks(SYS_newfstatat, {}));
  EXPECT_FALSE(OnlyLooks(SYS_openat, {0, 0, O_WRONLY, 0, 0, 0}));
  EXPECT_FALSE(OnlyLooks(SYS_openat, {0, 0, O_RDONLY | O_CREAT, 0, 0, 0}));
  EXPECT_FALSE(OnlyLooks(SYS_openat, {0, 0, O_RDONLY | O_TRUNC, 0, 0, 0}));
  EXPECT_FALSE(OnlyLooks(SYS_open, {0, O_TMPFILE | O_RDWR, 0, 0, 0, 0}));
  EXPECT_FALSE(OnlyLooks(SYS_openat2, {}));
  EXPECT_FALSE(OnlyLooks(SYS_mkdir, {}));
  EXPECT_FALSE(OnlyLooks(SYS_execve, {}));
  EXPECT_FALSE(OnlyLooks(SYS_connect, {}));
}

// The numbers are facts; libseccomp 2.5.4 knows every syscall up to Linux
// 6.1 and must agree with each one it knows.
TEST(SyscallTable, NumbersAgreeWithLibseccomp) {
  int compared = 0;
  for (const SyscallEntry& entry : SyscallTable()) {
    int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, std::string(entry.name).c_str());
    if (nr == __NR_SCMP_ERROR) continue;
    EXPECT_EQ(nr, entry.number) << entry.name;
    ++compared;
  }
  EXPECT_GT(compared, 350);
}

// Every number the table lacks is unknown to the running kernel: nothing is
// missing. (Calling a number that is not a syscall is harmless.)
TEST(SyscallTable, KernelKnowsNoSyscallTheTableLacks) {
  for (int nr = 0; nr < 1024; ++nr) {
    if (FindSyscall(nr) != nullptr) continue;
    errno = 0;
    long rc = ::syscall(nr, -1L, 0L, 0L, 0L, 0L, 0L);
    EXPECT_TRUE(rc == -1 && errno == ENOSYS) << "syscall " << nr << " exists on this kernel";
  }
}

}  // namespace
}  // namespace vigil::sentry
