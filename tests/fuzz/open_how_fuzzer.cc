// openat2's struct open_how as a hostile workload lays it out: CopyOpenHow
// must answer exactly what a byte-by-byte model of the kernel's
// copy_struct_from_user answers (EINVAL, E2BIG, EFAULT, or the struct's
// bytes), wherever the struct sits against unmapped memory, and
// OpenHowRefusal must never accept a flag, mode or resolve bit the sentry
// does not know.
//
// Input: a 12-byte header, then the workload's memory, mapped at
// FakeTracee::kBase with the rest of its last page filled with `fill`:
//   [0]      how [1..8] gives the pointer: 0 kBase + it, 1 the end of the
//            mapping - it (both within two pages), 2 as it is
//   [1..8]   pointer (little-endian)
//   [9..10]  size (little-endian; up to 65535, past the page limit)
//   [11]     fill
#include <fcntl.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "sentry/handlers/open_how.h"
#include "tests/fuzz/check.h"
#include "tests/sentry/fake_tracee.h"

namespace {

using vigil::fuzz::Die;
using vigil::sentry::FakeTracee;

constexpr std::size_t kHeader = 12;

// What the kernel answers for `size` bytes at `address`: 0, or an errno.
// The tail past the known struct is checked first, byte by byte up to its
// first non-zero byte; then the struct itself is copied.
int Expected(const FakeTracee& tracee, std::uint64_t address, std::uint64_t size) {
  if (size < vigil::sentry::kOpenHowSizeVer0) return EINVAL;
  if (size > FakeTracee::kPage) return E2BIG;
  for (std::uint64_t at = sizeof(open_how); at < size; ++at) {
    if (address + at < address || !tracee.Mapped(address + at, 1)) return EFAULT;
    if (tracee.ByteAt(address + at) != 0) return E2BIG;
  }
  return tracee.Mapped(address, sizeof(open_how)) ? 0 : EFAULT;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::uint8_t header[kHeader] = {};
  std::memcpy(header, data, std::min(size, kHeader));
  const std::span<const std::uint8_t> memory =
      size > kHeader ? std::span(data + kHeader, size - kHeader) : std::span<const std::uint8_t>();
  FakeTracee tracee = FakeTracee::Sealed(memory, header[11]);
  std::uint64_t pointer = 0;
  std::memcpy(&pointer, header + 1, 8);
  std::uint16_t length = 0;
  std::memcpy(&length, header + 9, 2);
  switch (header[0] % 3) {
    case 0:
      pointer = FakeTracee::kBase + pointer % (2 * FakeTracee::kPage);
      break;
    case 1:
      pointer = tracee.End() - pointer % (2 * FakeTracee::kPage);
      break;
    default:
      break;
  }

  const vigil::Result<open_how> how = vigil::sentry::CopyOpenHow(tracee, pointer, length);
  const int expected = Expected(tracee, pointer, length);
  const int got = how ? 0 : how.error().code;
  if (got != expected) {
    Die("CopyOpenHow differs from the kernel's rules", "size " + std::to_string(length) + ": got " +
                                                           std::to_string(got) + ", expected " +
                                                           std::to_string(expected));
  }
  if (!how) {
    vigil::fuzz::CheckOneLine(how.error());
    return 0;
  }
  if (std::memcmp(&*how, tracee.Bytes(pointer), sizeof(open_how)) != 0) {
    Die("CopyOpenHow copied other bytes than the workload's", std::to_string(pointer));
  }
  if (vigil::sentry::OpenHowRefusal(*how) == 0) {
    const std::uint64_t flags = how->flags & ~std::uint64_t{O_CLOEXEC};
    if ((flags & ~vigil::sentry::kOpenat2Flags) != 0 ||
        (how->resolve & ~vigil::sentry::kOpenat2Resolve) != 0 || how->mode > 07777 ||
        (flags >> 32) != 0) {
      Die("OpenHowRefusal accepted what the sentry does not know", std::to_string(how->flags));
    }
  }
  return 0;
}
