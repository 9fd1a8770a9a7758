#include "base/file.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "base/unique_fd.h"
#include "tests/support/temp_dir.h"

namespace vigil {
namespace {

using ::testing::HasSubstr;

class FileTest : public ::testing::Test {
 protected:
  test::TempDir temp_{"file-test"};
  const std::string dir_ = temp_.path();
};

TEST_F(FileTest, WriteThenReadBack) {
  std::string path = dir_ + "/f";
  ASSERT_TRUE(WriteFileAtomic(path, "hello", 0640, /*overwrite=*/false));
  EXPECT_EQ(*ReadFile(path, 100), "hello");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(
      st.st_mode & 0777, 0640u & ~[] {
        mode_t m = ::umask(0);
        ::umask(m);
        return m;
      }());
}

TEST_F(FileTest, RefusesToOverwriteUnlessAsked) {
  std::string path = dir_ + "/f";
  ASSERT_TRUE(WriteFileAtomic(path, "one", 0644, false));
  auto again = WriteFileAtomic(path, "two", 0644, false);
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message, HasSubstr("already exists"));
  EXPECT_EQ(*ReadFile(path, 100), "one");
  ASSERT_TRUE(WriteFileAtomic(path, "two", 0644, true));
  EXPECT_EQ(*ReadFile(path, 100), "two");
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(FileTest, RuntimeStateIsReplacedWholeWithoutAnFsync) {
  std::string path = dir_ + "/state.json";
  ASSERT_TRUE(WriteFileAtomic(path, "created", 0600, true, Durability::kSkipFsync));
  ASSERT_TRUE(WriteFileAtomic(path, "running", 0600, true, Durability::kSkipFsync));
  EXPECT_EQ(*ReadFile(path, 100), "running");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(FileTest, ReadRefusesLargeFilesAndDirectories) {
  std::string path = dir_ + "/f";
  ASSERT_TRUE(WriteFileAtomic(path, std::string(1000, 'x'), 0644, false));
  EXPECT_THAT(ReadFile(path, 999).error().message, HasSubstr("larger than 999 bytes"));
  EXPECT_THAT(ReadFile(dir_, 999).error().message, HasSubstr("not a regular file"));
  auto missing = ReadFile(dir_ + "/none", 10);
  EXPECT_EQ(missing.error().code, ENOENT);
}

// A FIFO in place of a file (config.json) is refused at once instead of
// waiting for a writer that never comes.
TEST_F(FileTest, ReadRefusesAFifoWithoutBlocking) {
  std::string fifo = dir_ + "/config.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Result<std::string> read = ReadFile(fifo, 1024);
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, HasSubstr("not a regular file"));
}

TEST(UniqueFdTest, ClosesOnDestructionAndMove) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  {
    UniqueFd a(raw);
    UniqueFd b(std::move(a));
    EXPECT_FALSE(a.Valid());
    EXPECT_EQ(b.Get(), raw);
  }
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1);
  EXPECT_EQ(errno, EBADF);
}

TEST(UniqueFdTest, ReleaseKeepsTheDescriptorOpen) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  {
    UniqueFd a(raw);
    EXPECT_EQ(a.Release(), raw);
  }
  EXPECT_NE(::fcntl(raw, F_GETFD), -1);
  ::close(raw);
}

}  // namespace
}  // namespace vigil
