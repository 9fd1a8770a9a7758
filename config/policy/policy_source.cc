// Where a policy comes from: the --policy flag (a profile, inline JSON or a
// file) or the dev.vigil.policy annotation (a profile or inline JSON).
#include <string>

#include "base/file.h"
#include "base/strings.h"
#include "config/policy/policy.h"

namespace vigil::config {
namespace {

// Policies are a few kilobytes; anything this large is a mistake.
constexpr std::size_t kMaxPolicyFileBytes = 1 << 20;

bool IsInlineJson(std::string_view value) {
  std::size_t start = value.find_first_not_of(" \t\r\n");
  return start != std::string_view::npos && value[start] == '{';
}

bool IsFilePath(std::string_view value) {
  return value.find('/') != std::string_view::npos || value.ends_with(".json");
}

// Wraps an error with the name of the source it came from.
Result<Policy> From(std::string_view source, Result<Policy> policy) {
  if (!policy) return tl::unexpected(std::move(policy).error().Wrap(source));
  return policy;
}

}  // namespace

Result<Policy> PolicyFromFlag(std::string_view value, std::string_view source) {
  if (IsInlineJson(value)) return From(source, ParsePolicy(value));
  if (IsFilePath(value)) {
    std::string path(value);
    Result<std::string> text = ReadFile(path, kMaxPolicyFileBytes);
    if (!text) return From(source, tl::unexpected(std::move(text).error()));
    return From(source, From(path, ParsePolicy(*text)));
  }
  return From(source, BuiltinPolicy(value));
}

Result<Policy> PolicyFromAnnotation(std::string_view value) {
  constexpr std::string_view kSource = "annotation dev.vigil.policy";
  if (IsInlineJson(value)) return From(kSource, ParsePolicy(value));
  if (IsFilePath(value)) {
    return From(kSource, Fail(StrCat(Quote(value),
                                     " looks like a file path; the annotation takes a profile "
                                     "name or inline JSON, never a host file")));
  }
  return From(kSource, BuiltinPolicy(value));
}

}  // namespace vigil::config
