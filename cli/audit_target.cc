#include "cli/audit_target.h"

#include <algorithm>

#include "base/directory.h"
#include "base/run_capturing.h"
#include "base/strings.h"
#include "runtime/container/state_dir.h"

namespace vigil::cli {
namespace {

constexpr std::string_view kLogSuffix = ".jsonl";

// The audited ids of each root, listed once for a lookup.
struct RootIds {
  std::string root;
  std::vector<std::string> ids;  // sorted
};

std::optional<AuditTarget> FindId(std::string_view id, const std::vector<RootIds>& listed) {
  for (const RootIds& root : listed) {
    if (std::binary_search(root.ids.begin(), root.ids.end(), id)) {
      return AuditTarget{.root = root.root, .id = std::string(id)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> AuditedIds(const std::string& root) {
  std::vector<std::string> ids;
  if (Result<std::vector<DirectoryEntry>> containers = ListDirectory(root)) {
    for (const DirectoryEntry& entry : *containers) {
      if (entry.IsDirectory() && !entry.name.starts_with('.')) ids.push_back(entry.name);
    }
  }
  if (Result<std::vector<DirectoryEntry>> logs =
          ListDirectory(StrCat(root, "/", runtime::kKeptAuditDir))) {
    for (const DirectoryEntry& entry : *logs) {
      // ID.jsonl; its rotated files (ID.jsonl.1, ...) name no other id.
      if (entry.name.ends_with(kLogSuffix) && entry.name.size() > kLogSuffix.size()) {
        ids.push_back(entry.name.substr(0, entry.name.size() - kLogSuffix.size()));
      }
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::optional<std::string> DockerIdOf(std::string_view name) {
  Result<Captured> inspected = RunCapturing(
      {"docker", "inspect", "--type", "container", "--format", "{{.Id}}", std::string(name)},
      Stderr::kDiscarded);
  if (!inspected || inspected->status != 0) return std::nullopt;
  std::string id = inspected->output;
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
  if (id.empty() || id.find('\n') != std::string::npos) return std::nullopt;
  return id;
}

Result<AuditTarget> FindAuditTarget(std::string_view reference,
                                    const std::vector<std::string>& roots,
                                    const NameLookup& lookup) {
  std::vector<RootIds> listed;
  for (const std::string& root : roots) listed.push_back({.root = root, .ids = AuditedIds(root)});
  if (std::optional<AuditTarget> exact = FindId(reference, listed)) return *exact;
  std::vector<AuditTarget> prefixed;
  for (const RootIds& root : listed) {
    for (const std::string& id : root.ids) {
      if (id.starts_with(reference)) prefixed.push_back({.root = root.root, .id = id});
    }
  }
  if (prefixed.size() == 1) return prefixed.front();
  if (prefixed.size() > 1) {
    std::vector<std::string> ids;
    for (const AuditTarget& target : prefixed) ids.push_back(target.id);
    return Fail(StrCat(Quote(reference), " begins the ids of ", prefixed.size(),
                       " containers: ", Join(ids, ", ")));
  }
  if (std::optional<std::string> id = lookup(reference)) {
    if (std::optional<AuditTarget> named = FindId(*id, listed)) return *named;
    return Fail(StrCat("Docker's container ", Quote(reference), " (", *id,
                       ") has no audit in the state roots vigil knows: ", Join(roots, ", "),
                       " (another root: --root)"));
  }
  return Fail(StrCat("no container ", Quote(reference),
                     " (an id, the start of one, or a Docker name) in ", Join(roots, ", "),
                     "; a log elsewhere: --file"));
}

}  // namespace vigil::cli
