// Invariants of the syscall table: complete, consistent, and agreeing with
// libseccomp and the running kernel.
#include "sentry/table/syscall_table.h"

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
        entry.guard == Guard::kInodeIoctlTypes) {
      EXPECT_EQ(entry.tier, Tier::kMediated);
    } else if (entry.guard != Guard::kNone) {
      EXPECT_EQ(entry.tier, Tier::kFast);
    }
    if (entry.scope != Scope::kAlways) {
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

// The escape routes DESIGN.md names never reach the kernel.
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

// What takes a path the workload names, and could tell a hidden file
// exists or change a read-only one, is mediated under a file policy.
TEST(SyscallTable, PathQueriesAreTheFilePolicys) {
  for (std::string_view name : {"statfs", "inotify_add_watch", "file_getattr", "file_setattr",
                                "name_to_handle_at", "getxattrat", "newfstatat", "getdents64"}) {
    const SyscallEntry* entry = FindSyscall(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_EQ(entry->tier, Tier::kMediated) << name;
    EXPECT_EQ(entry->scope, Scope::kFilePolicy) << name;
  }
  EXPECT_EQ(FindSyscall("file_setattr")->handler, Handler::kFallBack);
  EXPECT_EQ(FindSyscall("name_to_handle_at")->handler, Handler::kFallBack);
  EXPECT_EQ(FindSyscall("inotify_add_watch")->handler, Handler::kInotifyWatch);
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
