#include "config/oci/codec.h"

#include <charconv>

#include "base/strings.h"

namespace vigil::config {
namespace {

// The number's text if it is written as an integer, e.g. "-12" but not "1.0"
// or "1e3".
std::optional<std::string_view> IntegerText(json::Value v) {
  std::optional<std::string_view> text = v.NumberText();
  if (!text || text->find_first_of(".eE") != std::string_view::npos) return std::nullopt;
  return text;
}

}  // namespace

tl::unexpected<Error> FailAt(const JsonPath& path, std::string_view message) {
  return Fail(StrCat(path.ToString(), ": ", message));
}

tl::unexpected<Error> Expected(const JsonPath& path, std::string_view what, json::Value got) {
  return FailAt(path, StrCat("expected ", what, ", got ", got.Describe()));
}

Result<void> Decode(json::Value v, const JsonPath& path, bool& out) {
  std::optional<bool> b = v.AsBool();
  if (!b) return Expected(path, "boolean", v);
  out = *b;
  return {};
}

Result<void> Decode(json::Value v, const JsonPath& path, std::string& out) {
  std::optional<std::string_view> s = v.AsString();
  if (!s) return Expected(path, "string", v);
  out = *s;
  return {};
}

void Encode(json::Writer& w, bool in) { w.Bool(in); }
void Encode(json::Writer& w, const std::string& in) { w.String(in); }

Result<std::int64_t> DecodeSigned(json::Value v, const JsonPath& path, std::int64_t min,
                                  std::int64_t max, std::string_view what) {
  std::optional<std::string_view> text = IntegerText(v);
  std::int64_t n = 0;
  if (!text) return Expected(path, what, v);
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc() || end != text->data() + text->size() || n < min || n > max) {
    return Expected(path, StrCat(what, " in [", min, ", ", max, "]"), v);
  }
  return n;
}

Result<std::uint64_t> DecodeUnsigned(json::Value v, const JsonPath& path, std::uint64_t max,
                                     std::string_view what) {
  std::optional<std::string_view> text = IntegerText(v);
  std::uint64_t n = 0;
  if (!text) return Expected(path, what, v);
  if (text->starts_with('-')) return Expected(path, what, v);
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc() || end != text->data() + text->size() || n > max) {
    return Expected(path, StrCat(what, " in [0, ", max, "]"), v);
  }
  return n;
}

Result<void> CheckNames(const JsonPath& path, const std::string& name,
                        std::span<const NamedValue> table) {
  if (FindName(table, name) != nullptr) return {};
  return FailAt(path, UnknownNameMessage(name, NamesOf(table)));
}

Result<void> CheckNames(const JsonPath& path, const std::vector<std::string>& names,
                        std::span<const NamedValue> table) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    RETURN_IF_ERROR(CheckNames(path.Index(i), names[i], table));
  }
  return {};
}

}  // namespace vigil::config
