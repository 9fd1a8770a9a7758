#include "config/oci/json_path.h"

#include <algorithm>

#include "base/strings.h"

namespace vigil::config {
namespace {

bool IsIdentifier(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

JsonPath JsonPath::Key(std::string_view key) const {
  if (!IsIdentifier(key)) return JsonPath(StrCat(text_, '[', Quote(key), ']'));
  return JsonPath(text_.empty() ? std::string(key) : StrCat(text_, '.', key));
}

JsonPath JsonPath::Index(std::size_t index) const {
  return JsonPath(StrCat(text_, '[', index, ']'));
}

}  // namespace vigil::config
