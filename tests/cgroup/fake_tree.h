// Test support: a temp directory imitating /sys/fs/cgroup (v1, v2 or hybrid
// layouts with pre-created control files), and an Fs over it that behaves
// like cgroupfs where a plain directory does not: a write replaces a file's
// value, rmdir succeeds with control files inside. It records every write
// and can inject the kernel's errors.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/strings.h"
#include "runtime/cgroup/fs.h"
#include "runtime/cgroup/hierarchy.h"

namespace vigil::runtime::cgroup::testing {

class FakeTree {
 public:
  FakeTree() {
    char tmpl[] = "/tmp/vigil-cgroup-test.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) std::abort();
    root_ = tmpl;
  }
  ~FakeTree() { std::filesystem::remove_all(root_); }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  [[nodiscard]] const std::string& root() const { return root_; }
  [[nodiscard]] std::string Path(const std::string& rel) const { return root_ + "/" + rel; }

  // Creates (or overwrites) a control file, making its directories.
  void File(const std::string& rel, const std::string& contents = "") const {
    std::filesystem::create_directories(std::filesystem::path(Path(rel)).parent_path());
    std::ofstream(Path(rel), std::ios::trunc) << contents;
  }
  void Dir(const std::string& rel) const { std::filesystem::create_directories(Path(rel)); }
  [[nodiscard]] bool Exists(const std::string& rel) const {
    return std::filesystem::exists(Path(rel));
  }
  [[nodiscard]] std::string Contents(const std::string& rel) const {
    std::ifstream in(Path(rel));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // A v1 hierarchy mounted at <root>/<name> holding `controllers`.
  [[nodiscard]] Hierarchy V1(const std::string& name, std::vector<std::string> controllers,
                             const std::string& own_path = "/") const {
    Dir(name);
    return Hierarchy{.mount_point = Path(name),
                     .v2 = false,
                     .controllers = std::move(controllers),
                     .own_path = own_path};
  }

  // A cgroup2 mount at <root>/<name> whose root offers `controllers`.
  [[nodiscard]] Hierarchy V2(const std::string& name, std::vector<std::string> controllers,
                             const std::string& own_path = "/") const {
    std::string list;
    for (const std::string& c : controllers) list += (list.empty() ? "" : " ") + c;
    File(name + "/cgroup.controllers", list + "\n");
    File(name + "/cgroup.subtree_control", "");
    return Hierarchy{.mount_point = Path(name),
                     .v2 = true,
                     .controllers = std::move(controllers),
                     .own_path = own_path};
  }

 private:
  std::string root_;
};

class FakeFs : public Fs {
 public:
  struct Written {
    std::string path;
    std::string value;
  };

  Result<void> Write(const std::string& path, std::string_view value) const override {
    writes.push_back({path, std::string(value)});
    if (int e = NextError(write_errors, path)) return FailErrno(e, StrCat("write ", path));
    if (!Fs::Exists(path)) return FailErrno(ENOENT, StrCat("open ", path));
    auto instead = stored_instead.find(path);
    std::ofstream(path, std::ios::trunc)
        << (instead == stored_instead.end() ? std::string(value) : instead->second);
    return {};
  }

  Result<bool> Mkdir(const std::string& path) const override {
    Result<bool> made = Fs::Mkdir(path);
    if (made && *made) {
      // The kernel fills a new cgroup with its hierarchy's control files.
      for (const auto& [mount, files] : new_cgroup_files) {
        if (!path.starts_with(mount + "/")) continue;
        for (const std::string& file : files) std::ofstream(path + "/" + file);
      }
    }
    return made;
  }

  Result<void> Rmdir(const std::string& path) const override {
    rmdirs.push_back(path);
    if (int e = NextError(rmdir_errors, path)) return FailErrno(e, StrCat("rmdir ", path));
    // cgroupfs removes a cgroup with its control files, but not with
    // child cgroups in it.
    if (Fs::Exists(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (!entry.is_directory()) std::filesystem::remove(entry.path());
      }
    }
    return Fs::Rmdir(path);
  }

  // The values written to `path`, in order.
  [[nodiscard]] std::vector<std::string> WritesTo(const std::string& path) const {
    std::vector<std::string> out;
    for (const Written& w : writes) {
      if (w.path == path) out.push_back(w.value);
    }
    return out;
  }

  // "file=value" for each write, file relative to `dir`, for order checks.
  [[nodiscard]] std::vector<std::string> WritesUnder(const std::string& dir) const {
    std::vector<std::string> out;
    for (const Written& w : writes) {
      if (w.path.starts_with(dir + "/")) {
        out.push_back(w.path.substr(dir.size() + 1) + "=" + w.value);
      }
    }
    return out;
  }

  mutable std::vector<Written> writes;
  mutable std::vector<std::string> rmdirs;
  // Per path, errnos the next calls fail with (0: succeed that time).
  mutable std::map<std::string, std::deque<int>> write_errors;
  mutable std::map<std::string, std::deque<int>> rmdir_errors;
  // Per mount point, the (empty) control files a new cgroup gets.
  std::map<std::string, std::vector<std::string>> new_cgroup_files;
  // Per path, what the "kernel" keeps instead of the written value.
  std::map<std::string, std::string> stored_instead;

 private:
  static int NextError(std::map<std::string, std::deque<int>>& queues, const std::string& path) {
    auto it = queues.find(path);
    if (it == queues.end() || it->second.empty()) return 0;
    int e = it->second.front();
    it->second.pop_front();
    return e;
  }
};

}  // namespace vigil::runtime::cgroup::testing
