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

void JsonPath::AppendTo(std::string& out) const {
  if (parent_ == nullptr) return;
  parent_->AppendTo(out);
  if (is_index_) {
    out += StrCat('[', index_, ']');
  } else if (IsIdentifier(key_)) {
    if (!out.empty()) out += '.';
    out += key_;
  } else {
    out += StrCat('[', Quote(key_), ']');
  }
}

std::string JsonPath::ToString() const {
  std::string out;
  AppendTo(out);
  return out.empty() ? "(root)" : out;
}

}  // namespace vigil::config
