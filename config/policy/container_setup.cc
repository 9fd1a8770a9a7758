#include "config/policy/container_setup.h"

#include <fcntl.h>
#include <linux/openat2.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "base/syscalls.h"
#include "base/unique_fd.h"

namespace vigil::config {
namespace {

constexpr std::string_view kWholeTree = "/**";

bool HasMountAt(const Spec& spec, std::string_view destination) {
  return std::any_of(spec.mounts.begin(), spec.mounts.end(),
                     [&](const Mount& m) { return m.destination == destination; });
}

bool HasOption(const Mount& mount, std::string_view option) {
  return std::find(mount.options.begin(), mount.options.end(), option) != mount.options.end();
}

// /dev, /proc and /sys hold the runtime's own mounts; a rule there is the
// sentry's to enforce, not a scratch directory to create.
bool IsSystemTree(std::string_view dir) {
  for (std::string_view system : {"/dev", "/proc", "/sys"}) {
    if (dir == system || (dir.starts_with(system) && dir[system.size()] == '/')) return true;
  }
  return false;
}

// "/tmp/**" -> "/tmp"; nothing for a pattern with wildcards before the tail.
std::string WholeDirectory(std::string_view pattern) {
  if (!pattern.ends_with(kWholeTree)) return "";
  std::string_view dir = pattern.substr(0, pattern.size() - kWholeTree.size());
  if (dir.empty() || dir.find_first_of("*?[") != std::string_view::npos) return "";
  return std::string(dir);
}

// Whether `path` names a directory of the image at `rootfs`, symlinks
// resolved inside it as the container will see them: an image's link to
// /etc means the image's /etc, never the host's.
bool IsDirectoryInImage(const std::string& rootfs, const std::string& path) {
  UniqueFd root(::open(rootfs.c_str(), O_DIRECTORY | O_PATH | O_CLOEXEC));
  if (!root) return false;
  return Openat2(root.Get(), path.c_str(), O_PATH | O_DIRECTORY, 0,
                 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
      .has_value();
}

Mount Scratch(const Policy& policy, const std::string& destination) {
  Mount mount{.destination = destination,
              .type = "tmpfs",
              .source = std::string(kScratchSource),
              .options = {"nosuid", "nodev", "mode=1777"}};
  if (policy.default_scratch_bytes != 0) {
    mount.options.push_back(StrCat("size=", policy.default_scratch_bytes));
  }
  return mount;
}

// The policy's default limits, each only where the config sets none.
void ApplyDefaultLimits(const Policy& policy, Spec& spec) {
  if (policy.default_memory_bytes == 0 && policy.default_pids == 0 &&
      policy.default_cpu_millis == 0 && policy.default_nofile == 0) {
    return;
  }
  if (!spec.linux_spec) spec.linux_spec.emplace();
  if (!spec.linux_spec->resources) spec.linux_spec->resources.emplace();
  Resources& resources = *spec.linux_spec->resources;
  if (policy.default_memory_bytes != 0) {
    if (!resources.memory) resources.memory.emplace();
    if (!resources.memory->limit || *resources.memory->limit <= 0) {
      resources.memory->limit = static_cast<std::int64_t>(policy.default_memory_bytes);
    }
  }
  if (policy.default_pids != 0 && (!resources.pids || resources.pids->limit <= 0)) {
    resources.pids = Pids{.limit = static_cast<std::int64_t>(policy.default_pids)};
  }
  if (policy.default_cpu_millis != 0) {
    if (!resources.cpu) resources.cpu.emplace();
    if (!resources.cpu->quota || *resources.cpu->quota <= 0) {
      const std::uint64_t period = resources.cpu->period.value_or(100'000);
      resources.cpu->period = period;
      resources.cpu->quota = static_cast<std::int64_t>(period * policy.default_cpu_millis / 1000);
    }
  }
  if (policy.default_nofile != 0 && spec.process) {
    std::vector<Rlimit>& rlimits = spec.process->rlimits;
    if (std::none_of(rlimits.begin(), rlimits.end(),
                     [](const Rlimit& r) { return r.type == "RLIMIT_NOFILE"; })) {
      rlimits.push_back(Rlimit{
          .type = "RLIMIT_NOFILE", .hard = policy.default_nofile, .soft = policy.default_nofile});
    }
  }
}

// Before the first of the config's mounts beneath `mount` (a bind at
// /tmp/data stays visible over a scratch /tmp), else last.
void AddBeneathOthers(Spec& spec, Mount mount) {
  const std::string prefix = mount.destination + "/";
  auto beneath = std::find_if(spec.mounts.begin(), spec.mounts.end(),
                              [&](const Mount& m) { return m.destination.starts_with(prefix); });
  spec.mounts.insert(beneath, std::move(mount));
}

void AddWritableDirectories(const Policy& policy, Spec& spec) {
  for (const FileRule& rule : policy.files) {
    if (rule.access != FileAccess::kWrite) continue;
    std::string dir = WholeDirectory(rule.pattern);
    if (dir.empty() || IsSystemTree(dir) || HasMountAt(spec, dir)) continue;
    AddBeneathOthers(spec, Scratch(policy, dir));
  }
  const std::string& cwd = spec.process ? spec.process->cwd : "/";
  if (cwd == "/" || HasMountAt(spec, cwd)) return;
  if (IsDirectoryInImage(spec.root->path, cwd)) {
    // The runtime takes this source inside the rootfs too
    // (runtime/linux/bind_sources.h).
    AddBeneathOthers(spec, Mount{.destination = cwd,
                                 .type = "bind",
                                 .source = spec.root->path + cwd,
                                 .options = {"rbind", "rw"}});
  } else {
    AddBeneathOthers(spec, Scratch(policy, cwd));
  }
}

// A `dir/**` write rule, after the leading hidden, denied and masked rules
// and those for paths beneath `dir` (which keep winning below it: `vigil
// do` keeps a repository's hooks read-only in a writable checkout), unless
// the same rule is there.
void GrantWrites(Policy& policy, const std::string& dir) {
  const FileRule rule{.pattern = dir + std::string(kWholeTree), .access = FileAccess::kWrite};
  if (std::find(policy.files.begin(), policy.files.end(), rule) != policy.files.end()) return;
  const std::string beneath = dir == "/" ? dir : dir + "/";
  auto after = std::find_if(policy.files.begin(), policy.files.end(), [&](const FileRule& r) {
    return r.access != FileAccess::kHidden && r.access != FileAccess::kDenied &&
           r.access != FileAccess::kMasked && !r.pattern.starts_with(beneath);
  });
  policy.files.insert(after, rule);
}

bool IsBind(const Mount& mount) {
  return mount.type == "bind" || HasOption(mount, "bind") || HasOption(mount, "rbind");
}

bool Writable(const Mount& mount) {
  return (mount.type == "tmpfs" || IsBind(mount)) && !HasOption(mount, "ro");
}

// A bind mount the config makes writable (a project checkout, an output
// directory) stays writable whatever the policy's default: its write rule
// is implied, as the working directory's is.
void GrantWritableBindMounts(Policy& policy, const Spec& spec) {
  for (const Mount& mount : spec.mounts) {
    if (!IsBind(mount) || !Writable(mount) || mount.destination == "/" ||
        IsSystemTree(mount.destination) ||
        UniformAccessBeneath(policy, mount.destination) == FileAccess::kWrite) {
      continue;
    }
    GrantWrites(policy, mount.destination);
  }
}

// Each "masked" rule's path joins linux.maskedPaths, which the runtime
// masks as runc does (a file with /dev/null, a directory with an empty
// read-only tmpfs; a path the image lacks is left alone).
void AddMasks(const Policy& policy, Spec& spec) {
  for (const FileRule& rule : policy.files) {
    if (rule.access != FileAccess::kMasked) continue;
    std::optional<std::string> target = MaskTarget(rule.pattern);
    if (!target) continue;  // ParsePolicy refuses it
    if (!spec.linux_spec) spec.linux_spec.emplace();
    std::vector<std::string>& masked = spec.linux_spec->masked_paths;
    if (std::find(masked.begin(), masked.end(), *target) == masked.end()) {
      masked.push_back(*target);
    }
  }
}

}  // namespace

void AddImpliedRules(Policy& policy, const Spec& spec) {
  const std::string cwd = spec.process ? spec.process->cwd : "/";
  if (policy.read_only_root && spec.root && cwd != "/") GrantWrites(policy, cwd);
  GrantWritableBindMounts(policy, spec);
}

void ApplyPolicyToSpec(Policy& policy, Spec& spec) {
  if (policy.read_only_root && spec.root) {
    spec.root->readonly = true;
    AddWritableDirectories(policy, spec);
  }
  AddImpliedRules(policy, spec);
  AddMasks(policy, spec);
  ApplyDefaultLimits(policy, spec);
  // exec.fromWritable: false promises that nothing written runs: a file
  // mapped executable (by a loader the workload carries) as much as one
  // exec'd, which only a noexec mount refuses.
  if (policy.noexec_writable || !policy.exec_from_writable) {
    for (Mount& mount : spec.mounts) {
      if (Writable(mount) && !HasOption(mount, "noexec")) mount.options.push_back("noexec");
    }
  }
  if (policy.no_setuid && spec.process) spec.process->no_new_privileges = true;
}

}  // namespace vigil::config
