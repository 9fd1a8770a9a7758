#include "base/directory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/file.h"
#include "tests/support/temp_dir.h"

namespace vigil {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ListDirectoryTest, EveryEntryButDotsByNameWithItsOwnType) {
  test::TempDir temp{"directory-test"};
  const std::string dir = temp.path();
  ASSERT_TRUE(WriteFileAtomic(dir + "/b-file", "x", 0600, /*overwrite=*/false));
  ASSERT_EQ(::mkdir((dir + "/c-dir").c_str(), 0700), 0);
  ASSERT_EQ(::symlink("c-dir", (dir + "/a-link").c_str()), 0);  // a link to a directory
  ASSERT_EQ(::mkfifo((dir + "/d-fifo").c_str(), 0600), 0);

  Result<std::vector<DirectoryEntry>> entries = ListDirectory(dir);
  ASSERT_TRUE(entries) << entries.error().message;
  std::vector<std::string> names;
  for (const DirectoryEntry& entry : *entries) names.push_back(entry.name);
  EXPECT_THAT(names, ElementsAre("a-link", "b-file", "c-dir", "d-fifo"));
  EXPECT_TRUE((*entries)[0].IsSymlink());
  EXPECT_FALSE((*entries)[0].IsDirectory()) << "a link is not followed";
  EXPECT_EQ((*entries)[1].type, S_IFREG);
  EXPECT_TRUE((*entries)[2].IsDirectory());
  EXPECT_EQ((*entries)[3].type, S_IFIFO);
}

TEST(ListDirectoryTest, AMissingDirectoryIsAnErrorNamingIt) {
  Result<std::vector<DirectoryEntry>> entries = ListDirectory("/nonexistent/vigil-dir");
  ASSERT_FALSE(entries);
  EXPECT_THAT(entries.error().message, HasSubstr("/nonexistent/vigil-dir"));
}

TEST(ListDirectoryTest, AFileIsNotADirectory) {
  test::TempDir temp{"directory-test"};
  const std::string file = temp.path() + "/f";
  ASSERT_TRUE(WriteFileAtomic(file, "x", 0600, /*overwrite=*/false));
  EXPECT_FALSE(ListDirectory(file));
}

}  // namespace
}  // namespace vigil
