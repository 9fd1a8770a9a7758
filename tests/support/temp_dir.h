// A directory of the test's own under /tmp, removed with everything in it
// when the test ends: what a fixture's SetUp/TearDown pair used to write
// out each time.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace vigil::test {

class TempDir {
 public:
  // `name` makes the directory recognisable when a test leaves it (a
  // crash): /tmp/vigil-NAME.XXXXXX.
  explicit TempDir(std::string_view name) {
    std::string pattern = "/tmp/vigil-" + std::string(name) + ".XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << pattern << " failed";
      return;
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // `name` inside it.
  std::string Join(std::string_view name) const { return path_ + "/" + std::string(name); }
  // Writes `contents` to `name` inside it and returns the file's path.
  std::string Write(std::string_view name, std::string_view contents) const {
    std::string file = Join(name);
    std::ofstream(file) << contents;
    return file;
  }

 private:
  std::string path_;
};

}  // namespace vigil::test
