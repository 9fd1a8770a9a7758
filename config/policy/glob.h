// Path globs for file rules and the exec allow-list.
//
// fnmatch(3) with FNM_PATHNAME: `*`, `?` and `[...]` never match '/', and a
// leading '.' is matched by `*` like any other character. A wildcard stands
// for part of a name, and the root has none: "/*" does not match "/". One
// extension: a pattern ending in "/**" matches the directory before it and
// everything below it ("/tmp/**" matches "/tmp", "/tmp/a" and "/tmp/a/b", not
// "/tmpx"). "**" anywhere else is refused by CheckGlob.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace vigil::config {

// Checks that `pattern` is a glob over absolute normalised paths: it starts
// with '/', has no empty, "." or ".." components, no trailing '/', and "**"
// only as a whole last component. The error is a bare message ("must be an
// absolute path"), for the caller to prefix with where the pattern sits.
[[nodiscard]] Result<void> CheckGlob(std::string_view pattern);

// Whether `path` (absolute, normalised) matches `pattern` (one CheckGlob
// accepts).
bool GlobMatches(const std::string& pattern, std::string_view path);

// A pattern that matches exactly the literal path `path`: its wildcard
// characters escaped.
std::string EscapeGlob(std::string_view path);

// How `pattern` relates to the tree at `dir` (an absolute normalised path:
// the directory and every path beneath it).
enum class TreeMatch {
  kNone,  // it matches nothing in the tree
  kSome,  // it may match some paths of the tree
  kAll,   // it matches every path of the tree ("/a/**" for the tree at /a/b)
};
TreeMatch GlobMatchesTree(const std::string& pattern, std::string_view dir);

}  // namespace vigil::config
