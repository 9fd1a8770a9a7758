// vigil install / uninstall: register vigil as a runtime in Docker's
// daemon.json, containerd's config.toml or podman's containers.conf, like
// `runsc install`. The edits are pure functions of the file's text, tested
// without touching /etc.
//
// daemon.json is JSON: it is parsed and written back whole (every other member
// kept, in order; formatting becomes yajl's, tab-indented). So that uninstall
// gives the file back exactly as it was (its bytes, or no file at all), the
// first install keeps its text beside it (kDockerBackupSuffix), which
// uninstall restores when nothing else in the file has changed since. The TOML files are
// edited textually: vigil's lines sit in blocks between two marker comments,
//   # BEGIN vigil-install NAME (...)
//   # END vigil-install NAME
// which uninstall removes and install replaces; nothing outside them changes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vigil::cli::install {

enum class Target { kDocker, kContainerd, kPodman };

// What to register.
struct Registration {
  std::string name = "vigil";  // the runtime's name: a RuntimeClass handler, --runtime NAME
  std::string path;            // absolute path of the vigil binary
  std::vector<std::string> runtime_args;  // Docker only: runtimeArgs
};

// The result of an edit: the new text, whether it differs in meaning from the
// old one (false: installing again, or uninstalling what is not there), and
// notes for the user (e.g. "the CRI plugin is disabled").
struct Edit {
  std::string text;
  bool changed = false;
  std::vector<std::string> notes;
  // The file is to be removed rather than written: it did not exist before
  // install (or was empty, which reads the same).
  bool remove_file = false;
};

// daemon.json's text before vigil's first install, kept at PATH + this.
inline constexpr std::string_view kDockerBackupSuffix = ".vigil-backup";

// The file each target is configured by.
std::string_view DefaultConfigPath(Target target);

// Adds (or updates) the registration in `text`, the file's current contents
// ("" when the file does not exist).
Result<Edit> Install(Target target, std::string_view text, const Registration& registration);

// Removes the runtime `name` that Install added. `before_install`: for
// Docker, the text kept at the first install, if any.
Result<Edit> Uninstall(Target target, std::string_view text, std::string_view name,
                       std::optional<std::string_view> before_install = std::nullopt);

}  // namespace vigil::cli::install
