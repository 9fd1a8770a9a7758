// The JSON reader under every parser: Document::Parse must refuse or accept
// any bytes without crashing, and every accessor must work on every value of
// what it accepts.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/json/json_reader.h"
#include "tests/fuzz/check.h"

namespace {

using vigil::fuzz::Die;
using vigil::json::Kind;
using vigil::json::Value;

// `depth` counts the arrays and objects around v; Parse refuses more than
// kMaxDepth, which also bounds this recursion.
void Walk(Value v, std::size_t depth) {
  std::string description = v.Describe();
  if (description.find('\n') != std::string::npos) Die("Describe spans lines", description);
  // Exactly one accessor answers, the one of the value's kind.
  Kind kind = v.kind();
  if (v.AsBool().has_value() != (kind == Kind::kBool) ||
      v.AsString().has_value() != (kind == Kind::kString) ||
      v.NumberText().has_value() != (kind == Kind::kNumber) ||
      v.IsNull() != (kind == Kind::kNull)) {
    Die("accessors disagree with kind()", description);
  }
  if (kind == Kind::kString && v.AsString()->find('\0') != std::string_view::npos) {
    Die("string holds a NUL", description);
  }
  if ((kind == Kind::kArray || kind == Kind::kObject) && depth >= vigil::json::kMaxDepth) {
    Die("nested deeper than kMaxDepth", description);
  }
  if (kind == Kind::kArray) {
    for (std::size_t i = 0; i < v.size(); ++i) Walk(v.Element(i), depth + 1);
  } else if (kind == Kind::kObject) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v.Find(v.MemberKey(i))) Die("Find misses a member", std::string(v.MemberKey(i)));
      Walk(v.MemberValue(i), depth + 1);
    }
  } else if (v.size() != 0) {
    Die("a scalar has members", description);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  vigil::Result<vigil::json::Document> doc = vigil::json::Document::Parse(text);
  if (!doc) {
    vigil::fuzz::CheckOneLine(doc.error());
    return 0;
  }
  Walk(doc->root(), 0);
  return 0;
}
