#include "runtime/policy/rule_layers.h"

#include <algorithm>

#include "base/strings.h"
#include "config/policy/landlock_rules.h"

namespace vigil::runtime {
namespace {

bool Beneath(const std::string& path, const std::string& dir) {
  return dir == "/" || path == dir || (path.starts_with(dir) && path[dir.size()] == '/');
}

// What the sentry does for a rule of `access`: its filter must bring it the
// calls the rule governs (writes; reads too for a rule that hides or
// denies).
std::optional<std::string> SentryPart(const sentry::FilterOptions& filter,
                                      config::FileAccess access) {
  const bool reads_matter =
      access == config::FileAccess::kHidden || access == config::FileAccess::kDenied;
  if (reads_matter && filter.mediate_reads) return "sentry";
  if (filter.mediate_files) return reads_matter ? "sentry: writes only" : "sentry";
  return std::nullopt;
}

// Each Landlock layer's part: the grant beneath which the rule's paths
// lie, or none (the layer refuses what it handles there).
void LandlockParts(const std::vector<config::LandlockRuleset>& layers, const std::string& dir,
                   std::vector<std::string>& by) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const config::LandlockRuleset& layer = layers[i];
    const auto grant =
        std::find_if(layer.grants.begin(), layer.grants.end(), [&](const config::LandlockGrant& g) {
          return layer.exact ? dir == g.path : Beneath(dir, g.path);
        });
    const std::string name = StrCat("landlock ", i + 1, layer.exact ? " (exact)" : "", ": ");
    if (grant != layer.grants.end()) {
      by.push_back(
          StrCat(name, config::LandlockRightNames(grant->access), " beneath ", grant->path));
    } else if (!layer.exact) {
      by.push_back(StrCat(name, "no ", config::LandlockRightNames(layer.handled)));
    }
  }
}

// The mounts of the compiled config that enforce the rule: a mask over
// its path, or for "DIR/**" the mount at DIR (a read-only sysfs, a noexec
// tmpfs).
void MountParts(const config::Spec& spec, const std::string& pattern,
                std::vector<std::string>& by) {
  const bool tree = pattern.ends_with("/**");
  const std::string path = tree ? pattern.substr(0, pattern.size() - 3) : pattern;
  if (spec.linux_spec) {
    const std::vector<std::string>& masked = spec.linux_spec->masked_paths;
    if (std::find(masked.begin(), masked.end(), path) != masked.end())
      by.push_back("mount: masked");
  }
  if (!tree) return;
  for (const config::Mount& mount : spec.mounts) {
    if (mount.destination != path) continue;
    std::string described = "mount: " + mount.type;
    for (std::size_t i = 0; i < mount.options.size(); ++i) {
      described += (i == 0 ? " " : ",") + mount.options[i];
    }
    by.push_back(std::move(described));
  }
}

}  // namespace

std::vector<RuleLayers> FileRuleLayers(const CompiledPolicy& compiled, const config::Spec& spec) {
  std::vector<RuleLayers> rules;
  const config::FileAccess file_default = compiled.rules.file_default;
  RuleLayers fallback{.rule = "files.default", .access = file_default};
  if (auto sentry = SentryPart(compiled.filter, file_default)) fallback.by.push_back(*sentry);
  LandlockParts(compiled.landlock, "/", fallback.by);
  if (spec.root && spec.root->readonly) fallback.by.push_back("mount: read-only root");
  rules.push_back(std::move(fallback));
  for (const config::FileRule& rule : compiled.rules.files) {
    RuleLayers layers{.rule = rule.pattern, .access = rule.access};
    if (auto sentry = SentryPart(compiled.filter, rule.access)) layers.by.push_back(*sentry);
    LandlockParts(compiled.landlock, config::LiteralDirectory(rule.pattern), layers.by);
    MountParts(spec, rule.pattern, layers.by);
    rules.push_back(std::move(layers));
  }
  return rules;
}

}  // namespace vigil::runtime
