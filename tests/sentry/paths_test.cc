// CopyPath against a fake workload: it answers as the kernel's getname does.
#include "sentry/handlers/paths.h"

#include <gtest/gtest.h>
#include <limits.h>

#include <cerrno>
#include <string>

#include "tests/sentry/fake_tracee.h"

namespace vigil::sentry {
namespace {

constexpr std::uint64_t kPage = 4096;

int ErrorOf(const Result<std::string>& result) { return result ? 0 : result.error().code; }

// `text` at `address` in a fake workload of three pages.
FakeTracee WithString(std::uint64_t address, const std::string& text) {
  FakeTracee tracee(3 * kPage);
  EXPECT_TRUE(tracee.Write(address, std::as_bytes(std::span(text.data(), text.size()))));
  return tracee;
}

TEST(CopyPath, CopiesUpToTheNul) {
  FakeTracee tracee = WithString(FakeTracee::kBase, std::string("/etc/passwd\0junk", 16));
  Result<std::string> path = CopyPath(tracee, FakeTracee::kBase);
  ASSERT_TRUE(path) << path.error().message;
  EXPECT_EQ(*path, "/etc/passwd");
}

TEST(CopyPath, TakesPathMaxMinusOneCharacters) {
  const std::uint64_t at = FakeTracee::kBase + 3;
  FakeTracee tracee = WithString(at, std::string(PATH_MAX - 1, 'a') + '\0');
  Result<std::string> path = CopyPath(tracee, at);
  ASSERT_TRUE(path) << path.error().message;
  EXPECT_EQ(path->size(), static_cast<std::size_t>(PATH_MAX - 1));
}

// Found by sockaddr_fuzzer: the copy read whole chunks, so a NUL up to 254
// bytes past PATH_MAX (in the chunk that crossed it) was taken as the end of
// an acceptable path.
TEST(CopyPath, RefusesANulPastPathMax) {
  const std::uint64_t at = FakeTracee::kBase + 3;
  for (std::size_t length : {std::size_t{PATH_MAX}, std::size_t{PATH_MAX} + 100}) {
    FakeTracee tracee = WithString(at, std::string(length, 'a') + '\0');
    EXPECT_EQ(ErrorOf(CopyPath(tracee, at)), ENAMETOOLONG) << length;
  }
}

TEST(CopyPath, FaultsOnlyWhereTheStringRunsIntoUnmappedMemory) {
  FakeTracee tracee(kPage);
  ASSERT_TRUE(tracee.Write(FakeTracee::kBase + kPage - 4, std::as_bytes(std::span("abc", 4))));
  EXPECT_EQ(ErrorOf(CopyPath(tracee, FakeTracee::kBase + kPage - 4)), 0);
  ASSERT_TRUE(tracee.Write(FakeTracee::kBase + kPage - 4, std::as_bytes(std::span("abcd", 4))));
  EXPECT_EQ(ErrorOf(CopyPath(tracee, FakeTracee::kBase + kPage - 4)), EFAULT);
  EXPECT_EQ(ErrorOf(CopyPath(tracee, 8)), EFAULT);
}

TEST(CopyPath, RefusesAnEmptyPath) {
  FakeTracee tracee;
  EXPECT_EQ(ErrorOf(CopyPath(tracee, FakeTracee::kBase)), ENOENT);
}

}  // namespace
}  // namespace vigil::sentry
