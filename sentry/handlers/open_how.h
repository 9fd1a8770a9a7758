// openat2(2)'s `struct open_how`, an extensible struct: copied once from
// the workload with the size it gives, and checked as the kernel checks it
// (copy_struct_from_user, then build_open_flags) before the path is read.
#pragma once

#include <linux/openat2.h>

#include <cstdint>

#include "base/result.h"
#include "sentry/core/tracee.h"

namespace vigil::sentry {

// The size of open_how's first version (the kernel's OPEN_HOW_SIZE_VER0,
// which the uapi headers do not export), the smallest openat2 accepts.
inline constexpr std::uint64_t kOpenHowSizeVer0 = 24;

// The open flags openat2 takes on x86_64 (the kernel's VALID_OPEN_FLAGS):
// anything else, bits above 32 included, is EINVAL, where open and openat
// drop it silently.
inline constexpr std::uint64_t kOpenat2Flags = 037777703;

// The resolve flags this kernel (6.18) and the sentry know.
inline constexpr std::uint64_t kOpenat2Resolve = RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS |
                                                 RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH |
                                                 RESOLVE_IN_ROOT | RESOLVE_CACHED;

// The struct at `address`, `size` bytes long as the workload says: EINVAL
// below kOpenHowSizeVer0, E2BIG above a page or when the bytes past the
// struct the sentry knows are not all zero, EFAULT for memory it cannot
// read — in the kernel's order (the tail is checked before the struct is
// copied, and a non-zero byte before an unmapped page is E2BIG).
Result<open_how> CopyOpenHow(TraceeMemory& tracee, std::uint64_t address, std::uint64_t size);

// The errno openat2 answers for `how` before it looks at the path (EINVAL
// for unknown or conflicting flags, a mode without O_CREAT or O_TMPFILE;
// EAGAIN for RESOLVE_CACHED with an open that must create or truncate), 0
// if it is acceptable.
int OpenHowRefusal(const open_how& how);

}  // namespace vigil::sentry
