// Why the mapping is sound, i.e. why Landlock never refuses what the policy
// allows (an access that Landlock refuses and the sentry would allow is a bug
// in this file):
//
// - Opens, creations, removals, renames, links and attribute changes are
//   mediated whenever the file rules restrict anything (Scope::kFilePolicy
//   in sentry/table/classification.cc, RestrictsFiles), which every policy
//   handled here does (its files.default is not "write"): the supervisor
//   performs them, not
//   under Landlock, and installs the resulting fds. A descriptor's Landlock
//   rights (WRITE_FILE, TRUNCATE, IOCTL_DEV) are fixed when it is opened,
//   by the opener, so fds the sentry installs are never restricted.
// - What the workload's kernel does itself, with paths, under Landlock: the
//   lookups of execve (let through after the sentry's check), opens the
//   sentry decided and left to the kernel (O_PATH ones; writes beneath an
//   ExactWriteTrees directory, which lies beneath a granted one here), and
//   fast-path syscalls, of which only bind(2) of a unix socket path needs a
//   Landlock right (MAKE_SOCK on the parent directory).
// - A right is handled only where the policy bounds it: write rights only
//   when files.default is not "write", read rights only when it is hidden
//   or denied, EXECUTE when exec.allow is not empty or files.default is
//   hidden or denied. Each is then granted beneath a directory that contains
//   every path some rule grants it to (LiteralDirectory), so the granted set
//   is a superset of the allowed one.
// - EXECUTE is what the kernel checks on every file it opens for an exec
//   (the program, each #! interpreter, the ELF interpreter, a binfmt_misc
//   handler). The sentry refuses an exec unless each of those files matches
//   exec.allow and is neither hidden nor denied (sentry/handlers/exec.cc), so
//   a file it lets run lies beneath a literal directory of exec.allow and,
//   under a hidden or denied default, beneath one of a read or write rule:
//   EXECUTE is granted beneath the intersection of the two sets of
//   subtrees. The kernel then holds the exec check even for what the sentry
//   cannot see: a file swapped between its check and the kernel's open.
// - Rights a kernel-performed operation needs on the *parent* of a granted
//   path (creating or removing the granted directory's own entry) are not
//   granted: creating it when it is missing is covered by granting beneath
//   its nearest existing ancestor, and removing or renaming it is only ever
//   done by mediated syscalls.
#include "config/policy/landlock_rules.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace vigil::config {
namespace {

constexpr std::string_view kWholeTree = "/**";

// READ_FILE is not handled: execve opens the program, its ELF interpreter
// (PT_INTERP) and any script interpreter for reading in the workload's
// kernel, and the sentry judges those as executables, not as reads: grants
// derived from the read rules would be a superset only by the accident of
// the two agreeing. READ_DIR is safe: no kernel-performed operation of the workload opens a
// directory (opens are all mediated, chdir is not a Landlock access).
constexpr std::uint64_t kReadClass = kLandlockReadDir;

// `wanted` granted beneath each of `dirs`, or nothing when one of them is
// "/" (the right would be granted everywhere: handling it buys nothing).
bool Grant(const std::vector<std::string>& dirs, std::uint64_t rights,
           std::map<std::string, std::uint64_t>& grants) {
  if (std::find(dirs.begin(), dirs.end(), "/") != dirs.end()) return false;
  for (const std::string& dir : dirs) grants[dir] |= rights;
  return true;
}

// The subtrees that lie in both unions of subtrees: two subtrees meet only
// when one holds the other, and then in the deeper one.
std::vector<std::string> Intersection(const std::vector<std::string>& a,
                                      const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& x : a) {
    for (const std::string& y : b) {
      if (IsBeneath(x, y))
        out.push_back(x);
      else if (IsBeneath(y, x))
        out.push_back(y);
    }
  }
  return out;
}

std::vector<LandlockGrant> Minimal(const std::map<std::string, std::uint64_t>& grants) {
  std::vector<LandlockGrant> out;
  for (const auto& grant : grants) {
    // The map is sorted, so an enclosing directory comes before the paths
    // beneath it; a grant it already covers adds nothing.
    const auto& [path, access] = grant;
    const bool covered = std::any_of(out.begin(), out.end(), [&grant](const LandlockGrant& g) {
      return IsBeneath(grant.first, g.path) && (grant.second & ~g.access) == 0;
    });
    if (!covered) out.push_back({path, access});
  }
  return out;
}

}  // namespace

std::uint64_t LandlockFsRights(int abi) {
  if (abi < 1) return 0;
  std::uint64_t rights = (kLandlockMakeSym << 1) - 1;  // ABI 1: EXECUTE .. MAKE_SYM
  if (abi >= 2) rights |= kLandlockRefer;
  if (abi >= 3) rights |= kLandlockTruncate;
  if (abi >= 5) rights |= kLandlockIoctlDev;
  return rights;
}

std::string LandlockRightNames(std::uint64_t rights) {
  if (rights == kLandlockWriteClass) return "writes";
  static constexpr std::pair<std::uint64_t, std::string_view> kNames[] = {
      {kLandlockExecute, "execute"},      {kLandlockWriteFile, "write_file"},
      {kLandlockReadFile, "read_file"},   {kLandlockReadDir, "read_dir"},
      {kLandlockRemoveDir, "remove_dir"}, {kLandlockRemoveFile, "remove_file"},
      {kLandlockMakeChar, "make_char"},   {kLandlockMakeDir, "make_dir"},
      {kLandlockMakeReg, "make_reg"},     {kLandlockMakeSock, "make_sock"},
      {kLandlockMakeFifo, "make_fifo"},   {kLandlockMakeBlock, "make_block"},
      {kLandlockMakeSym, "make_sym"},     {kLandlockRefer, "refer"},
      {kLandlockTruncate, "truncate"},    {kLandlockIoctlDev, "ioctl_dev"},
  };
  std::string names;
  for (const auto& [right, name] : kNames) {
    if ((rights & right) == 0) continue;
    if (!names.empty()) names += ',';
    names += name;
  }
  return names;
}

// Every path a glob matches starts with the text before its first
// metacharacter ('\' counts: an escape is cut too, which only widens), so
// the directory that text ends in contains them all. A pattern without one
// names one path, which lies in its parent; "/dir/**" matches "/dir" and
// what is beneath it, so "/dir" itself contains them all (the one thing a
// grant beneath "/dir" misses, the entry "/dir" in its parent, is discussed
// at the top of the file).
std::string LiteralDirectory(std::string_view pattern) {
  std::string_view base = pattern;
  const bool tree = base.ends_with(kWholeTree);
  if (tree) base.remove_suffix(kWholeTree.size());
  const std::size_t meta = base.find_first_of("*?[\\");
  if (tree && meta == std::string_view::npos) return base.empty() ? "/" : std::string(base);
  const std::size_t end = meta == std::string_view::npos ? base.size() : meta;
  const std::size_t slash = end == 0 ? 0 : base.rfind('/', end - 1);
  if (slash == 0 || slash == std::string_view::npos) return "/";
  return std::string(base.substr(0, slash));
}

LandlockRuleset LandlockRulesFor(const Policy& policy, int abi) {
  const std::uint64_t known = LandlockFsRights(abi);
  std::vector<std::string> writable;
  std::vector<std::string> visible;
  for (const FileRule& rule : policy.files) {
    if (rule.access == FileAccess::kWrite) writable.push_back(LiteralDirectory(rule.pattern));
    if (rule.access == FileAccess::kWrite || rule.access == FileAccess::kRead ||
        rule.access == FileAccess::kMasked) {
      visible.push_back(LiteralDirectory(rule.pattern));
    }
  }
  LandlockRuleset ruleset;
  std::map<std::string, std::uint64_t> grants;
  const std::uint64_t write = kLandlockWriteClass & known;
  if (policy.file_default != FileAccess::kWrite && write != 0 && Grant(writable, write, grants)) {
    ruleset.handled |= write;
  }
  const bool read_bounded =
      policy.file_default == FileAccess::kHidden || policy.file_default == FileAccess::kDenied;
  const std::uint64_t read = kReadClass & known;
  if (read_bounded && read != 0 && Grant(visible, read, grants)) ruleset.handled |= read;
  std::vector<std::string> executable = {"/"};
  if (!policy.exec_allow.empty()) {
    executable.clear();
    for (const std::string& pattern : policy.exec_allow) {
      executable.push_back(LiteralDirectory(pattern));
    }
  }
  if (read_bounded) executable = Intersection(executable, visible);
  if ((known & kLandlockExecute) != 0 && Grant(executable, kLandlockExecute, grants)) {
    ruleset.handled |= kLandlockExecute;
  }
  if (ruleset.handled == 0) return {};
  ruleset.grants = Minimal(grants);
  return ruleset;
}

std::vector<std::string> ExactWriteTrees(const Policy& policy, const std::vector<Mount>& mounts) {
  // Only where every open for writing reaches the sentry (the filter
  // mediates files): elsewhere the layer would refuse the opens the
  // workload's kernel makes alone.
  if (!RestrictsFiles(policy) && !policy.observe) return {};
  std::vector<std::string> trees;
  for (const FileRule& rule : policy.files) {
    if (rule.access != FileAccess::kWrite || !rule.pattern.ends_with(kWholeTree)) continue;
    const std::string dir = rule.pattern.substr(0, rule.pattern.size() - kWholeTree.size());
    if (dir.empty() || dir.find_first_of("*?[\\") != std::string::npos) continue;
    if (UniformAccessBeneath(policy, dir) != FileAccess::kWrite) continue;
    const bool own_filesystem = std::any_of(mounts.begin(), mounts.end(), [&](const Mount& m) {
      return m.destination == dir && (m.type == "tmpfs" || m.type == "devpts");
    });
    if (own_filesystem && std::find(trees.begin(), trees.end(), dir) == trees.end()) {
      trees.push_back(dir);
    }
  }
  return trees;
}

LandlockRuleset ExactWriteRuleset(const std::vector<std::string>& trees, int abi) {
  if (abi < 3 || trees.empty()) return {};
  const std::uint64_t write = kLandlockOpenWrites & LandlockFsRights(abi);
  LandlockRuleset ruleset{.handled = write, .exact = true};
  for (const std::string& tree : trees) ruleset.grants.push_back({tree, write});
  std::sort(ruleset.grants.begin(), ruleset.grants.end(),
            [](const LandlockGrant& a, const LandlockGrant& b) { return a.path < b.path; });
  return ruleset;
}

}  // namespace vigil::config
