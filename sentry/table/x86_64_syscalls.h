// The x86_64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl,
// common and 64-bit entries, through Linux 6.18). Facts only: what the
// sentry does with each is decided in classification.cc.
#pragma once

#include <span>
#include <string_view>

namespace vigil::sentry {

struct SyscallNumber {
  int number;
  std::string_view name;
};

// Sorted by number. Numbers absent here are not syscalls on x86_64 (the
// kernel answers ENOSYS); a test checks that against the running kernel.
std::span<const SyscallNumber> X86_64Syscalls();

}  // namespace vigil::sentry
