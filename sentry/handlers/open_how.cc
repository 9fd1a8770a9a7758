#include "sentry/handlers/open_how.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <span>

namespace vigil::sentry {
namespace {

// The kernel's PAGE_SIZE on x86_64: the largest open_how it reads.
constexpr std::uint64_t kPage = 4096;

// The kernel's __O_TMPFILE (glibc's O_TMPFILE includes O_DIRECTORY).
constexpr std::uint64_t kTmpfileBit = 020000000;

// What O_PATH may come with (the kernel's O_PATH_FLAGS, O_CLOEXEC aside).
constexpr std::uint64_t kPathFlags = O_PATH | O_DIRECTORY | O_NOFOLLOW;

// Whether the `size` bytes at `address` are all zero: E2BIG at the first
// byte that is not, EFAULT at the first page that cannot be read, one page
// at a time so that a non-zero byte before an unmapped page is found first,
// as the kernel's check_zeroed_user finds it.
Result<void> CheckZeroed(TraceeMemory& tracee, std::uint64_t address, std::uint64_t size) {
  std::array<std::byte, kPage> chunk{};
  while (size > 0) {
    const std::uint64_t want = std::min(size, kPage - address % kPage);
    std::span<std::byte> bytes(chunk.data(), want);
    if (!tracee.Read(address, bytes)) return FailErrno(EFAULT, "open_how beyond its known size");
    if (std::any_of(bytes.begin(), bytes.end(), [](std::byte b) { return b != std::byte{0}; })) {
      return FailErrno(E2BIG, "open_how has fields this kernel does not know");
    }
    address += want;
    size -= want;
  }
  return {};
}

}  // namespace

Result<open_how> CopyOpenHow(TraceeMemory& tracee, std::uint64_t address, std::uint64_t size) {
  static_assert(sizeof(open_how) == kOpenHowSizeVer0);
  if (size < kOpenHowSizeVer0) return FailErrno(EINVAL, "open_how smaller than its first version");
  if (size > kPage) return FailErrno(E2BIG, "open_how larger than a page");
  if (size > sizeof(open_how)) {
    RETURN_IF_ERROR(CheckZeroed(tracee, address + sizeof(open_how), size - sizeof(open_how)));
  }
  open_how how{};
  if (!tracee.Read(address, std::as_writable_bytes(std::span(&how, 1)))) {
    return FailErrno(EFAULT, "read open_how");
  }
  return how;
}

int OpenHowRefusal(const open_how& how) {
  const std::uint64_t flags = how.flags & ~std::uint64_t{O_CLOEXEC};
  if ((flags & ~kOpenat2Flags) != 0 || (how.resolve & ~kOpenat2Resolve) != 0) return EINVAL;
  // The two scopes contradict each other.
  if ((how.resolve & RESOLVE_BENEATH) && (how.resolve & RESOLVE_IN_ROOT)) return EINVAL;
  const bool creates = (flags & (O_CREAT | kTmpfileBit)) != 0;
  if (creates ? (how.mode & ~std::uint64_t{07777}) != 0 : how.mode != 0) return EINVAL;
  // Since Linux 6.4: O_CREAT | O_DIRECTORY once created regular files.
  if ((flags & (O_CREAT | O_DIRECTORY)) == (O_CREAT | O_DIRECTORY)) return EINVAL;
  if ((flags & kTmpfileBit) && ((flags & O_DIRECTORY) == 0 || (flags & O_ACCMODE) == O_RDONLY)) {
    return EINVAL;
  }
  if ((flags & O_PATH) && (flags & ~kPathFlags) != 0) return EINVAL;
  // A cached lookup cannot create or truncate: refused before trying.
  if ((how.resolve & RESOLVE_CACHED) && (flags & (O_TRUNC | O_CREAT | kTmpfileBit))) {
    return EAGAIN;
  }
  return 0;
}

}  // namespace vigil::sentry
