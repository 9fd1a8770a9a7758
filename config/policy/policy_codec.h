// Internal to config/policy: the policy document's field tables and the
// codecs of its value types, on top of config/oci/codec.h. Unlike config.json,
// a policy refuses properties its tables do not list: a typo in a security
// policy must not silently weaken it.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/result.h"
#include "base/strings.h"
#include "config/oci/codec.h"
#include "config/oci/json_path.h"
#include "config/policy/policy.h"

namespace vigil::config {

// Where every policy error points from: "policy.files.rules[2].access".
inline JsonPath PolicyRoot() { return JsonPath().Key("policy"); }

// The top-level object's properties (policy_fields.cc): ParsePolicy decodes
// and DumpPolicy encodes with this one table.
std::span<const Field<Policy>> PolicyFields();

// "path.key: unknown property (expected one of: a, b)" for a key that no
// field lists.
[[nodiscard]] tl::unexpected<Error> UnknownProperty(const JsonPath& path, std::string_view key,
                                                    std::span<const std::string_view> keys);

// DecodeObject that also refuses members the table does not list.
template <typename T>
Result<void> DecodeStrict(json::Value v, const JsonPath& path, std::span<const Field<T>> fields,
                          T& out) {
  if (v.kind() != json::Kind::kObject) return Expected(path, "object", v);
  std::vector<std::string_view> keys;
  for (const Field<T>& field : fields) keys.push_back(field.key);
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string_view key = v.MemberKey(i);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return UnknownProperty(path, key, keys);
    }
  }
  return DecodeObject(v, path, fields, out);
}

// ---- Closed sets of strings -------------------------------------------------

template <typename E>
using Choices = std::span<const std::pair<std::string_view, E>>;

extern const std::pair<std::string_view, FileAccess> kFileAccessChoices[5];
extern const std::pair<std::string_view, AuditLevel> kAuditChoices[4];
extern const std::pair<std::string_view, bool> kEgressDefaultChoices[2];  // true = deny

// `expected one of "a", "b", got string "c"` unless `v` is one of `choices`.
template <typename E>
Result<void> DecodeChoice(json::Value v, const JsonPath& path, Choices<E> choices, E& out) {
  std::optional<std::string_view> s = v.AsString();
  for (const auto& [name, value] : choices) {
    if (s && *s == name) {
      out = value;
      return {};
    }
  }
  std::string what = "one of ";
  for (std::size_t i = 0; i < choices.size(); ++i) {
    what += StrCat(i > 0 ? ", " : "", Quote(choices[i].first));
  }
  return Expected(path, what, v);
}

template <typename E>
void EncodeChoice(json::Writer& w, Choices<E> choices, E in) {
  for (const auto& [name, value] : choices) {
    if (value == in) return w.String(name);
  }
  w.Null();  // unreachable for the enums' declared values
}

// ---- Value types --------------------------------------------------------------
// Found by the codec templates (vectors, Bind) through argument-dependent
// lookup; these non-templates win over codec.h's enum templates.

Result<void> Decode(json::Value v, const JsonPath& path, FileAccess& out);
Result<void> Decode(json::Value v, const JsonPath& path, AuditLevel& out);
Result<void> Decode(json::Value v, const JsonPath& path, PortRange& out);
Result<void> Decode(json::Value v, const JsonPath& path, Cidr& out);
Result<void> Decode(json::Value v, const JsonPath& path, FileRule& out);
Result<void> Decode(json::Value v, const JsonPath& path, EgressRule& out);
void Encode(json::Writer& w, FileAccess in);
void Encode(json::Writer& w, AuditLevel in);
void Encode(json::Writer& w, const PortRange& in);
void Encode(json::Writer& w, const Cidr& in);
void Encode(json::Writer& w, const FileRule& in);
void Encode(json::Writer& w, const EgressRule& in);

// A glob (see glob.h): a string CheckGlob accepts.
Result<void> DecodeGlob(json::Value v, const JsonPath& path, std::string& out);

// ---- Field helpers --------------------------------------------------------------

// A property stored in `Member` that DumpPolicy always writes, so that a dump
// states every decision (false and empty included) and reads back equal.
template <auto Member>
constexpr auto Prop(std::string_view key) {
  using C = decltype(ClassOfMember(Member));
  return Field<C>{
      key,
      [](json::Value v, const JsonPath& path, C& out) { return Decode(v, path, out.*Member); },
      [](json::Writer& w, std::string_view k, const C& in) {
        w.Key(k);
        Encode(w, in.*Member);
      },
  };
}

// A nested JSON object whose properties `Table` stores in Policy itself:
// "files": {"default": ..., "rules": ...} fills Policy::file_default and
// Policy::files.
template <const auto& Table>
constexpr Field<Policy> Section(std::string_view key) {
  return Field<Policy>{
      key,
      [](json::Value v, const JsonPath& path, Policy& out) {
        return DecodeStrict<Policy>(v, path, Table, out);
      },
      [](json::Writer& w, std::string_view k, const Policy& in) {
        w.Key(k);
        EncodeObject<Policy>(w, Table, in);
      },
  };
}

}  // namespace vigil::config
