// openat2's struct open_how: copied by the size the workload gives, and
// checked as openat2(2) and the kernel (6.18) check it, in their order.
#include "sentry/handlers/open_how.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "tests/sentry/fake_tracee.h"

namespace vigil::sentry {
namespace {

constexpr std::uint64_t kMapped = 8192;  // FakeTracee's mapping: two pages
constexpr std::uint64_t kEnd = FakeTracee::kBase + kMapped;
constexpr std::uint64_t kHow = FakeTracee::kBase;

int CopyError(FakeTracee& tracee, std::uint64_t address, std::uint64_t size) {
  Result<open_how> how = CopyOpenHow(tracee, address, size);
  return how ? 0 : how.error().code;
}

void PutHow(FakeTracee& tracee, std::uint64_t address, const open_how& how) {
  ASSERT_TRUE(tracee.WriteObject(address, how));
}

void PutByte(FakeTracee& tracee, std::uint64_t address, std::uint8_t value) {
  ASSERT_TRUE(tracee.WriteObject(address, value));
}

TEST(CopyOpenHow, TheFirstVersionIsCopiedAsIs) {
  FakeTracee tracee(kMapped);
  PutHow(tracee, kHow, {.flags = O_RDWR | O_CREAT, .mode = 0640, .resolve = RESOLVE_BENEATH});
  Result<open_how> how = CopyOpenHow(tracee, kHow, kOpenHowSizeVer0);
  ASSERT_TRUE(how) << how.error().message;
  EXPECT_EQ(how->flags, std::uint64_t{O_RDWR | O_CREAT});
  EXPECT_EQ(how->mode, 0640u);
  EXPECT_EQ(how->resolve, std::uint64_t{RESOLVE_BENEATH});
}

TEST(CopyOpenHow, SmallerThanTheFirstVersionIsEinval) {
  FakeTracee tracee(kMapped);
  EXPECT_EQ(CopyError(tracee, kHow, 0), EINVAL);
  EXPECT_EQ(CopyError(tracee, kHow, kOpenHowSizeVer0 - 1), EINVAL);
  // Before the pointer is looked at.
  EXPECT_EQ(CopyError(tracee, 0x8, 23), EINVAL);
}

TEST(CopyOpenHow, LargerThanAPageIsE2big) {
  FakeTracee tracee(kMapped);
  EXPECT_EQ(CopyError(tracee, kHow, 4097), E2BIG);
  EXPECT_EQ(CopyError(tracee, 0x8, 5000), E2BIG);
  EXPECT_EQ(CopyError(tracee, kHow, 4096), 0);  // a page of zeros past the struct
}

// A newer program's larger struct is accepted as long as the fields this
// kernel does not know are zero.
TEST(CopyOpenHow, ALargerStructNeedsAZeroTail) {
  FakeTracee tracee(kMapped);
  PutHow(tracee, kHow, {.flags = O_RDONLY});
  EXPECT_EQ(CopyError(tracee, kHow, 32), 0);
  PutByte(tracee, kHow + 31, 1);
  EXPECT_EQ(CopyError(tracee, kHow, 32), E2BIG);
  EXPECT_EQ(CopyError(tracee, kHow, 31), 0);  // the non-zero byte is past this size
  PutByte(tracee, kHow + 24, 0x80);
  EXPECT_EQ(CopyError(tracee, kHow, 25), E2BIG);
}

TEST(CopyOpenHow, UnreadableMemoryIsEfault) {
  FakeTracee tracee(kMapped);
  EXPECT_EQ(CopyError(tracee, 0x8, kOpenHowSizeVer0), EFAULT);
  EXPECT_EQ(CopyError(tracee, kEnd - 23, kOpenHowSizeVer0), EFAULT);
  // The struct fits, its zero tail runs into the unmapped page.
  EXPECT_EQ(CopyError(tracee, kEnd - 24, 32), EFAULT);
  EXPECT_EQ(CopyError(tracee, kEnd - 24, 24), 0);
}

// The kernel checks the tail before it copies the struct, and stops at the
// first non-zero byte: one before an unmapped page is E2BIG, not EFAULT.
TEST(CopyOpenHow, ATailIsCheckedBeforeTheStructAndUpToItsFirstNonZeroByte) {
  FakeTracee tracee(kMapped);
  PutByte(tracee, kEnd - 2, 7);
  EXPECT_EQ(CopyError(tracee, kEnd - 30, 40), E2BIG);
  PutByte(tracee, kEnd - 2, 0);
  EXPECT_EQ(CopyError(tracee, kEnd - 30, 40), EFAULT);
}

TEST(OpenHowRefusal, AcceptsWhatOpenatTakes) {
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDONLY | O_CLOEXEC}), 0);
  EXPECT_EQ(OpenHowRefusal({.flags = O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, .mode = 07777}), 0);
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDWR | O_TMPFILE, .mode = 0600}), 0);
  EXPECT_EQ(OpenHowRefusal({.flags = O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC}), 0);
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_APPEND | O_DSYNC |
                                     O_SYNC | FASYNC | O_DIRECT | 0100000 /* O_LARGEFILE */ |
                                     O_NOFOLLOW | O_NOATIME | O_DIRECTORY}),
            0);
  EXPECT_EQ(OpenHowRefusal({.resolve = kOpenat2Resolve & ~std::uint64_t{RESOLVE_BENEATH}}), 0);
}

// openat2 checks every bit, where open and openat drop the unknown ones.
TEST(OpenHowRefusal, UnknownFlagsAreEinval) {
  for (int bit : {2, 3, 4, 5, 23, 26, 31, 32, 40, 63}) {
    EXPECT_EQ(OpenHowRefusal({.flags = std::uint64_t{1} << bit}), EINVAL) << "flag bit " << bit;
  }
  for (int bit : {6, 7, 31, 32, 63}) {
    EXPECT_EQ(OpenHowRefusal({.resolve = std::uint64_t{1} << bit}), EINVAL)
        << "resolve bit " << bit;
  }
  EXPECT_EQ(OpenHowRefusal({.resolve = RESOLVE_BENEATH | RESOLVE_IN_ROOT}), EINVAL);
}

TEST(OpenHowRefusal, AModeOnlyWithACreation) {
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDONLY, .mode = 0644}), EINVAL);
  EXPECT_EQ(OpenHowRefusal({.flags = O_WRONLY | O_CREAT, .mode = 010000}), EINVAL);
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDWR | O_TMPFILE, .mode = 0100644}), EINVAL);
  EXPECT_EQ(OpenHowRefusal({.flags = O_WRONLY | O_CREAT, .mode = 0}), 0);
}

TEST(OpenHowRefusal, FlagsThatCannotGoTogether) {
  EXPECT_EQ(OpenHowRefusal({.flags = O_CREAT | O_DIRECTORY}), EINVAL);
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDONLY | O_TMPFILE}), EINVAL);
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDWR | 020000000 /* __O_TMPFILE alone */}), EINVAL);
  EXPECT_EQ(OpenHowRefusal({.flags = O_PATH | O_RDWR}), EINVAL);
  EXPECT_EQ(OpenHowRefusal({.flags = O_PATH | O_TRUNC}), EINVAL);
}

// RESOLVE_CACHED: EAGAIN for an open that cannot be served from the cache
// alone, after the EINVAL checks.
TEST(OpenHowRefusal, CachedLookupsNeitherCreateNorTruncate) {
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDONLY, .resolve = RESOLVE_CACHED}), 0);
  EXPECT_EQ(OpenHowRefusal({.flags = O_WRONLY | O_TRUNC, .resolve = RESOLVE_CACHED}), EAGAIN);
  EXPECT_EQ(OpenHowRefusal({.flags = O_WRONLY | O_CREAT, .resolve = RESOLVE_CACHED}), EAGAIN);
  EXPECT_EQ(OpenHowRefusal({.flags = O_RDWR | O_TMPFILE, .resolve = RESOLVE_CACHED}), EAGAIN);
  EXPECT_EQ(OpenHowRefusal({.flags = O_CREAT, .mode = 010000, .resolve = RESOLVE_CACHED}), EINVAL);
}

}  // namespace
}  // namespace vigil::sentry
