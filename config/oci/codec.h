// The field-table machinery behind every config section: each struct lists
// its JSON properties once, and decoding (with path-naming errors), encoding
// and the round trip all derive from that list.
//
//   constexpr Field<Memory> kMemoryFields[] = {
//       Bind<&Memory::limit>("limit"),
//       Bind<&Memory::swappiness>("swappiness"),
//   };
//
// Properties a table does not list are ignored, as the runtime-spec requires.
// The same list gives Overlay, which lays the members one value holds over
// another (`vigil update`'s changes over the container's resources).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/result.h"
#include "config/oci/json_path.h"
#include "config/oci/names.h"

namespace vigil::config {

template <typename T>
struct Field {
  std::string_view key;
  Result<void> (*decode)(json::Value value, const JsonPath& path, T& out);
  // Writes "key": value, or nothing when the member holds its empty value.
  void (*encode)(json::Writer& w, std::string_view key, const T& in);
  bool required = false;
  // Copies the member from `from` into `to` when `from` holds a value in it
  // (IsEmptyValue); nullptr where overlaying means nothing.
  void (*overlay)(const T& from, T& to) = nullptr;
};

// An error at `path`: "path: message".
[[nodiscard]] tl::unexpected<Error> FailAt(const JsonPath& path, std::string_view message);
// "path: expected <what>, got <description of value>".
[[nodiscard]] tl::unexpected<Error> Expected(const JsonPath& path, std::string_view what,
                                             json::Value got);

// ---- Scalars --------------------------------------------------------------

Result<void> Decode(json::Value v, const JsonPath& path, bool& out);
Result<void> Decode(json::Value v, const JsonPath& path, std::string& out);
void Encode(json::Writer& w, bool in);
void Encode(json::Writer& w, const std::string& in);

// Integers must be written as integers (no fraction or exponent) and fit the
// member's type, as Go's encoding/json demands of the same fields.
Result<std::int64_t> DecodeSigned(json::Value v, const JsonPath& path, std::int64_t min,
                                  std::int64_t max, std::string_view what);
Result<std::uint64_t> DecodeUnsigned(json::Value v, const JsonPath& path, std::uint64_t max,
                                     std::string_view what);

template <typename T>
requires(std::is_integral_v<T> &&
         !std::is_same_v<T, bool>) Result<void> Decode(json::Value v, const JsonPath& path,
                                                       T& out) {
  if constexpr (std::is_signed_v<T>) {
    ASSIGN_OR_RETURN(
        auto n, DecodeSigned(v, path, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                             sizeof(T) == 8 ? "integer" : "32-bit integer"));
    out = static_cast<T>(n);
  } else {
    ASSIGN_OR_RETURN(auto n, DecodeUnsigned(v, path, std::numeric_limits<T>::max(),
                                            sizeof(T) == 8   ? "unsigned integer"
                                            : sizeof(T) == 4 ? "unsigned 32-bit integer"
                                                             : "unsigned 16-bit integer"));
    out = static_cast<T>(n);
  }
  return {};
}

template <typename T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) void Encode(json::Writer& w, T in) {
  if constexpr (std::is_signed_v<T>) {
    w.Int(in);
  } else {
    w.Uint(in);
  }
}

// ---- Enums: a NameTable<E> specialisation lists the spellings -------------

template <typename E>
requires std::is_enum_v<E> Result<void> Decode(json::Value v, const JsonPath& path, E& out) {
  std::optional<std::string_view> s = v.AsString();
  if (!s) return Expected(path, "string", v);
  for (const auto& [name, value] : NameTable<E>::kEntries) {
    if (name == *s) {
      out = value;
      return {};
    }
  }
  return FailAt(path, UnknownNameMessage(*s, NamesOf<E>()));
}

template <typename E>
requires std::is_enum_v<E>
void Encode(json::Writer& w, E in) { w.String(NameOf(in)); }

// ---- Structs: a Decode/Encode pair per struct, written with DecodeObject ---

template <typename T>
Result<void> DecodeObject(json::Value v, const JsonPath& path, std::span<const Field<T>> fields,
                          T& out) {
  if (v.kind() != json::Kind::kObject) return Expected(path, "object", v);
  for (const Field<T>& field : fields) {
    std::optional<json::Value> member = v.Find(field.key);
    // null reads as absent, as Go's encoding/json treats it.
    if (!member || member->IsNull()) {
      if (field.required) {
        return FailAt(path.Key(field.key),
                      member ? "required property is null" : "required property is missing");
      }
      continue;
    }
    RETURN_IF_ERROR(field.decode(*member, path.Key(field.key), out));
  }
  return {};
}

template <typename T>
void EncodeObject(json::Writer& w, std::span<const Field<T>> fields, const T& in) {
  w.BeginObject();
  for (const Field<T>& field : fields) field.encode(w, field.key, in);
  w.EndObject();
}

// ---- Containers -------------------------------------------------------------

template <typename T>
Result<void> Decode(json::Value v, const JsonPath& path, std::vector<T>& out) {
  if (v.kind() != json::Kind::kArray) return Expected(path, "array", v);
  out.clear();
  out.resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    RETURN_IF_ERROR(Decode(v.Element(i), path.Index(i), out[i]));
  }
  return {};
}

template <typename T>
Result<void> Decode(json::Value v, const JsonPath& path, std::map<std::string, T>& out) {
  if (v.kind() != json::Kind::kObject) return Expected(path, "object", v);
  out.clear();
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string_view key = v.MemberKey(i);
    // A fresh value per entry: with a duplicate key the last entry replaces
    // the earlier one whole, as in Go, rather than merging into it.
    T value{};
    RETURN_IF_ERROR(Decode(v.MemberValue(i), path.Key(key), value));
    out.insert_or_assign(std::string(key), std::move(value));
  }
  return {};
}

template <typename T>
Result<void> Decode(json::Value v, const JsonPath& path, std::optional<T>& out) {
  out.emplace();
  return Decode(v, path, *out);
}

template <typename T>
void Encode(json::Writer& w, const std::vector<T>& in) {
  w.BeginArray();
  for (const T& item : in) Encode(w, item);
  w.EndArray();
}

template <typename T>
void Encode(json::Writer& w, const std::map<std::string, T>& in) {
  w.BeginObject();
  for (const auto& [key, value] : in) {
    w.Key(key);
    Encode(w, value);
  }
  w.EndObject();
}

// ---- Binding members to keys ------------------------------------------------

// Whether a member holds nothing worth writing: absent optionals, empty
// strings, lists and maps, and false. Numbers and structs are always written.
template <typename T>
bool IsEmptyValue(const T& in) {
  if constexpr (std::is_same_v<T, bool>) {
    return !in;
  } else if constexpr (requires { in.has_value(); }) {
    return !in.has_value();
  } else if constexpr (requires { in.empty(); }) {
    return in.empty();
  } else {
    return false;
  }
}

// Writes "key": value; an optional member is skipped when empty, a required
// one always written (a required `"allow": false` must survive a round trip).
template <bool kRequired, typename T>
void EncodeMember(json::Writer& w, std::string_view key, const T& in) {
  if (!kRequired && IsEmptyValue(in)) return;
  w.Key(key);
  if constexpr (requires { in.has_value(); }) {
    Encode(w, *in);
  } else {
    Encode(w, in);
  }
}

template <typename C, typename M>
C ClassOfMember(M C::*);

template <auto Member, typename C>
void OverlayMember(const C& from, C& to) {
  if (!IsEmptyValue(from.*Member)) to.*Member = from.*Member;
}

// Every member `from` holds a value in, copied over `to`'s; the rest of
// `to` stays as it is.
template <typename T>
void Overlay(std::span<const Field<T>> fields, const T& from, T& to) {
  for (const Field<T>& field : fields) {
    if (field.overlay != nullptr) field.overlay(from, to);
  }
}

// A property stored in member `Member`, decoded and encoded by the overloads
// above (or the struct's own Decode/Encode pair).
template <auto Member, bool kRequired = false>
constexpr auto Bind(std::string_view key) {
  using C = decltype(ClassOfMember(Member));
  return Field<C>{
      key,
      [](json::Value v, const JsonPath& path, C& out) { return Decode(v, path, out.*Member); },
      [](json::Writer& w, std::string_view k, const C& in) {
        EncodeMember<kRequired>(w, k, in.*Member);
      },
      kRequired,
      &OverlayMember<Member, C>,
  };
}

template <auto Member>
constexpr auto Required(std::string_view key) {
  return Bind<Member, true>(key);
}

// A string (or list of strings) that must be one of the names in `table`,
// e.g. capability or rlimit names. An empty string passes only where the
// spec gives it a meaning (`kAllowEmpty`).
template <auto Member, const auto& Table, bool kRequired = false, bool kAllowEmpty = false>
constexpr auto BindName(std::string_view key) {
  using C = decltype(ClassOfMember(Member));
  return Field<C>{
      key,
      [](json::Value v, const JsonPath& path, C& out) -> Result<void> {
        RETURN_IF_ERROR(Decode(v, path, out.*Member));
        if constexpr (kAllowEmpty) {
          if (IsEmptyValue(out.*Member)) return {};
        }
        return CheckNames(path, out.*Member, std::span(Table));
      },
      [](json::Writer& w, std::string_view k, const C& in) {
        EncodeMember<kRequired>(w, k, in.*Member);
      },
      kRequired,
  };
}

Result<void> CheckNames(const JsonPath& path, const std::string& name,
                        std::span<const NamedValue> table);
Result<void> CheckNames(const JsonPath& path, const std::vector<std::string>& names,
                        std::span<const NamedValue> table);

}  // namespace vigil::config
