// The handful of file operations the cgroup code performs, behind one narrow
// interface: production uses the real filesystem; tests wrap it to record
// every write and to inject the kernel's errors (EBUSY, EINVAL) into a temp
// directory that imitates /sys/fs/cgroup.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vigil::runtime::cgroup {

class Fs {
 public:
  virtual ~Fs() = default;

  // The whole contents of a control file (at most 1 MiB).
  virtual Result<std::string> Read(const std::string& path) const;

  // Writes `value` to an existing control file in one write(2), as the
  // kernel wants knobs written (no create, no truncate).
  virtual Result<void> Write(const std::string& path, std::string_view value) const;

  // Whether `path` exists.
  virtual bool Exists(const std::string& path) const;

  // mkdir(2) with mode 0755: true when it made the directory, false when it
  // was already there.
  virtual Result<bool> Mkdir(const std::string& path) const;

  // rmdir(2); the error's code is the errno (EBUSY, ENOENT, ...).
  virtual Result<void> Rmdir(const std::string& path) const;

  // The names of the subdirectories of `path` (child cgroups).
  virtual Result<std::vector<std::string>> Subdirs(const std::string& path) const;

  // The process-wide real filesystem.
  static const Fs& Real();
};

}  // namespace vigil::runtime::cgroup
