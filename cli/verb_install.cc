// vigil install / uninstall: see verb_install.h for the editing rules.
#include "cli/verb_install.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>

#include "base/file.h"
#include "base/strings.h"
#include "cli/install_edits.h"
#include "cli/verbs.h"

namespace vigil::cli {
namespace install {
namespace {

constexpr std::size_t kMaxConfigBytes = 4u << 20;

Result<void> CheckName(std::string_view name) {
  bool bare = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  if (!bare) return Fail(StrCat("runtime name ", Quote(name), ": use letters, digits, - and _"));
  return {};
}

}  // namespace

std::string_view DefaultConfigPath(Target target) {
  switch (target) {
    case Target::kDocker:
      return "/etc/docker/daemon.json";
    case Target::kContainerd:
      return "/etc/containerd/config.toml";
    case Target::kPodman:
      return "/etc/containers/containers.conf";
  }
  return "";
}

Result<Edit> Install(Target target, std::string_view text, const Registration& registration) {
  RETURN_IF_ERROR(CheckName(registration.name));
  if (!registration.path.starts_with('/')) {
    return Fail(StrCat("the runtime's path must be absolute, got ", Quote(registration.path)));
  }
  switch (target) {
    case Target::kDocker:
      return InstallDocker(text, registration);
    case Target::kContainerd:
      return EditContainerd(text, &registration, registration.name);
    case Target::kPodman:
      return EditPodman(text, &registration, registration.name);
  }
  return Fail("unknown target");
}

Result<Edit> Uninstall(Target target, std::string_view text, std::string_view name,
                       std::optional<std::string_view> before_install) {
  RETURN_IF_ERROR(CheckName(name));
  switch (target) {
    case Target::kDocker:
      return UninstallDocker(text, name, before_install);
    case Target::kContainerd:
      return EditContainerd(text, nullptr, name);
    case Target::kPodman:
      return EditPodman(text, nullptr, name);
  }
  return Fail("unknown target");
}

}  // namespace install

// ---- the verbs ---------------------------------------------------------------

const FlagSpec kInstallFlags[8] = {
    {"docker", "", false, "", "register with Docker: /etc/docker/daemon.json"},
    {"containerd", "", false, "",
     "register with containerd's CRI plugin (a RuntimeClass handler): "
     "/etc/containerd/config.toml"},
    {"podman", "", false, "", "register with podman: /etc/containers/containers.conf"},
    {"config", "", true, "FILE", "edit FILE instead of the target's usual file"},
    {"dry-run", "", false, "", "print the edited file instead of writing it"},
    {"runtime", "", true, "NAME", "the runtime's name (default \"vigil\")"},
    {"path", "", true, "PATH", "the vigil binary to register (default: this one)"},
    {"runtime-args", "", true, "ARG",
     "Docker only: an argument for vigil, repeatable (so are arguments after --)"},
};

namespace {

using install::Target;

Result<Target> ChooseTarget(const ParsedFlags& flags) {
  std::vector<Target> chosen;
  if (flags.IsSet("docker")) chosen.push_back(Target::kDocker);
  if (flags.IsSet("containerd")) chosen.push_back(Target::kContainerd);
  if (flags.IsSet("podman")) chosen.push_back(Target::kPodman);
  if (chosen.size() != 1) return Fail("give exactly one of --docker, --containerd, --podman");
  return chosen[0];
}

// The file's text, "" when it does not exist.
Result<std::string> ReadConfig(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return std::string();
  return ReadFile(path, install::kMaxConfigBytes);
}

// Writes the edit over the file (through a symlink to its target), keeping
// its mode.
Result<void> WriteConfig(const std::string& path, std::string_view text) {
  std::string target = path;
  if (char resolved[PATH_MAX]; ::realpath(path.c_str(), resolved) != nullptr) target = resolved;
  int mode = 0644;
  if (struct stat st{}; ::stat(target.c_str(), &st) == 0)
    mode = static_cast<int>(st.st_mode & 07777);
  return WriteFileAtomic(target, text, mode, /*overwrite=*/true);
}

std::string_view Reload(Target target) {
  switch (target) {
    case Target::kDocker:
      return "; restart dockerd (or send it SIGHUP) to use it";
    case Target::kContainerd:
      return "; restart containerd to use it";
    case Target::kPodman:
      return "";
  }
  return "";
}

Result<int> RunEdit(const Invocation& invocation, bool installing) {
  const ParsedFlags& flags = invocation.flags;
  ASSIGN_OR_RETURN(Target target, ChooseTarget(flags));
  std::string path =
      flags.Value("config").value_or(std::string(install::DefaultConfigPath(target)));
  install::Registration registration;
  registration.name = flags.Value("runtime").value_or("vigil");
  if (installing) {
    if (std::optional<std::string> given = flags.Value("path")) {
      registration.path = *given;
    } else {
      char self[PATH_MAX];
      ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
      if (n < 0) return FailErrno("readlink /proc/self/exe");
      registration.path.assign(self, static_cast<std::size_t>(n));
    }
    registration.runtime_args = flags.Values("runtime-args");
    registration.runtime_args.insert(registration.runtime_args.end(), flags.positional.begin(),
                                     flags.positional.end());
  } else if (!flags.positional.empty()) {
    return Fail(StrCat("uninstall takes no arguments, got ", Quote(flags.positional[0])));
  }

  ASSIGN_OR_RETURN(std::string text, ReadConfig(path));
  // daemon.json as it was before the first install (verb_install.h).
  const std::string backup = StrCat(path, install::kDockerBackupSuffix);
  const bool keeps_backup = target == Target::kDocker;
  std::optional<std::string> before_install;
  if (keeps_backup && ::access(backup.c_str(), F_OK) == 0) {
    ASSIGN_OR_RETURN(before_install, ReadFile(backup, install::kMaxConfigBytes));
  }
  auto edited = installing ? install::Install(target, text, registration)
                           : install::Uninstall(target, text, registration.name, before_install);
  if (!edited) return tl::unexpected(std::move(edited).error().Wrap(path));
  for (const std::string& note : edited->notes) {
    std::fprintf(stderr, "vigil: note: %s: %s\n", path.c_str(), note.c_str());
  }
  if (flags.IsSet("dry-run")) {
    std::fwrite(edited->text.data(), 1, edited->text.size(), stdout);
    return 0;
  }
  std::string runtime = Quote(registration.name);
  if (!edited->changed) {
    std::printf("%s: %s\n", path.c_str(),
                StrCat(installing ? "already has runtime " : "has no runtime ", runtime,
                       "; nothing changed")
                    .c_str());
    return 0;
  }
  if (keeps_backup && installing && !before_install) {
    RETURN_IF_ERROR(WriteFileAtomic(backup, text, 0600, /*overwrite=*/false));
  }
  if (edited->remove_file) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return FailErrno(StrCat("remove ", path));
  } else {
    RETURN_IF_ERROR(WriteConfig(path, edited->text));
  }
  if (keeps_backup && !installing) ::unlink(backup.c_str());
  if (installing) {
    std::printf("%s: added runtime %s (%s)%s\n", path.c_str(), runtime.c_str(),
                registration.path.c_str(), std::string(Reload(target)).c_str());
  } else {
    std::printf("%s: removed runtime %s%s\n", path.c_str(), runtime.c_str(),
                std::string(Reload(target)).c_str());
  }
  return 0;
}

}  // namespace

const FlagSpec kUninstallFlags[6] = {
    {"docker", "", false, "", "unregister from Docker: /etc/docker/daemon.json"},
    {"containerd", "", false, "", "unregister from containerd: /etc/containerd/config.toml"},
    {"podman", "", false, "", "unregister from podman: /etc/containers/containers.conf"},
    {"config", "", true, "FILE", "edit FILE instead of the target's usual file"},
    {"dry-run", "", false, "", "print the edited file instead of writing it"},
    {"runtime", "", true, "NAME", "the runtime's name (default \"vigil\")"},
};

Result<int> RunInstall(const Invocation& invocation) { return RunEdit(invocation, true); }
Result<int> RunUninstall(const Invocation& invocation) { return RunEdit(invocation, false); }

}  // namespace vigil::cli
