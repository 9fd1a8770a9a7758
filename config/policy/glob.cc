#include "config/policy/glob.h"

#include <fnmatch.h>

#include <algorithm>
#include <string>
#include <vector>

namespace vigil::config {
namespace {

constexpr std::string_view kRecursiveSuffix = "/**";
// What fnmatch(3) reads as other than itself ('\\' escapes the next one).
bool IsWildcard(char c) { return c == '*' || c == '?' || c == '[' || c == '\\'; }

bool Fnmatch(const std::string& pattern, const std::string& path) {
  // The root has no name for a wildcard to match: "/*" names what is in /,
  // not / itself, though fnmatch lets '*' match the empty name after '/'.
  if (path == "/") return pattern == "/";
  return ::fnmatch(pattern.c_str(), path.c_str(), FNM_PATHNAME) == 0;
}

}  // namespace

Result<void> CheckGlob(std::string_view pattern) {
  if (!pattern.starts_with('/')) return Fail("must be an absolute path");
  if (pattern.size() > 1 && pattern.ends_with('/')) return Fail("must not end with '/'");
  std::string_view rest = pattern.substr(1);
  while (!rest.empty()) {
    std::size_t slash = rest.find('/');
    std::string_view component = rest.substr(0, slash);
    if (component.empty()) return Fail("must not contain an empty component (\"//\")");
    if (component == "." || component == "..") {
      return Fail("must be normalised (no \".\" or \"..\" components)");
    }
    bool last = slash == std::string_view::npos;
    if (component.find("**") != std::string_view::npos && !(last && component == "**")) {
      return Fail("\"**\" is only allowed as the last component (\"/dir/**\")");
    }
    rest = last ? std::string_view() : rest.substr(slash + 1);
  }
  return {};
}

namespace {

std::vector<std::string> Components(std::string_view path) {
  std::vector<std::string> out;
  std::size_t at = 1;
  while (at <= path.size()) {
    std::size_t slash = path.find('/', at);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > at) out.emplace_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return out;
}

}  // namespace

// Component by component (no component contains '/'): the tree's paths all
// start with dir's components and go on with anything.
std::string EscapeGlob(std::string_view path) {
  std::string pattern;
  pattern.reserve(path.size());
  for (char c : path) {
    if (IsWildcard(c)) pattern += '\\';
    pattern += c;
  }
  return pattern;
}

TreeMatch GlobMatchesTree(const std::string& pattern, std::string_view dir) {
  const bool recursive = pattern.ends_with(kRecursiveSuffix) || pattern == "/**";
  std::vector<std::string> fixed =
      Components(recursive ? std::string_view(pattern).substr(0, pattern.size() - 2)
                           : std::string_view(pattern));
  const std::vector<std::string> tree = Components(dir);
  const std::size_t common = std::min(fixed.size(), tree.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (::fnmatch(fixed[i].c_str(), tree[i].c_str(), 0) != 0) return TreeMatch::kNone;
  }
  // "/a/**" with all of "/a" matched by dir's first components: below dir
  // every path matches too.
  if (recursive && fixed.size() <= tree.size()) return TreeMatch::kAll;
  // Longer than dir: it can still match paths beneath. A fixed pattern
  // shorter than dir matches none of the tree's deeper paths.
  if (!recursive && fixed.size() < tree.size()) return TreeMatch::kNone;
  return TreeMatch::kSome;
}

bool GlobMatches(const std::string& pattern, std::string_view path) {
  const bool recursive = pattern.ends_with(kRecursiveSuffix);
  const std::string_view base = std::string_view(pattern).substr(
      0, recursive ? pattern.size() - kRecursiveSuffix.size() : pattern.size());
  // Up to its first wildcard a pattern matches only itself, so most rules
  // are settled here, without fnmatch: every mediated file call tries the
  // policy's rules in turn.
  std::size_t literal = 0;
  for (; literal < base.size() && !IsWildcard(base[literal]); ++literal) {
    if (literal >= path.size() || path[literal] != base[literal]) return false;
  }
  if (literal == base.size()) {  // no wildcard at all
    if (!recursive) return path.size() == base.size();
    // "/**" (an empty base) matches every path, "/dir/**" the directory
    // and everything below it.
    return base.empty() ? path.starts_with('/')
                        : path.size() == base.size() || path[base.size()] == '/';
  }
  std::string path_text(path);
  if (!recursive) return Fnmatch(pattern, path_text);
  // "/dir/**": the directory itself or anything below it, i.e. some prefix of
  // the path ending at a component boundary matches "/dir".
  const std::string base_text(base);
  for (std::size_t end = 1; end <= path_text.size(); ++end) {
    if (end < path_text.size() && path_text[end] != '/') continue;
    if (Fnmatch(base_text, path_text.substr(0, end))) return true;
  }
  return false;
}

}  // namespace vigil::config
