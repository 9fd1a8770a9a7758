// A read-only JSON document tree (yajl underneath; no yajl type escapes).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

struct yajl_val_s;

namespace vigil::json {

enum class Kind { kNull, kBool, kNumber, kString, kObject, kArray };

// A non-owning view of one value inside a Document. Valid while the Document
// lives.
class Value {
 public:
  explicit Value(const yajl_val_s* v) : v_(v) {}

  [[nodiscard]] Kind kind() const;
  [[nodiscard]] bool IsNull() const { return kind() == Kind::kNull; }

  // Accessors return nullopt when the value has another kind.
  [[nodiscard]] std::optional<bool> AsBool() const;
  [[nodiscard]] std::optional<std::string_view> AsString() const;
  // The number exactly as written in the document ("12", "-1", "1.5e3"), so
  // callers can parse it into the integer type they need without rounding.
  [[nodiscard]] std::optional<std::string_view> NumberText() const;

  // Arrays and objects: element count (0 for other kinds).
  [[nodiscard]] std::size_t size() const;
  // The i-th array element; i < size().
  [[nodiscard]] Value Element(std::size_t i) const;
  // The i-th object member's key and value; i < size().
  [[nodiscard]] std::string_view MemberKey(std::size_t i) const;
  [[nodiscard]] Value MemberValue(std::size_t i) const;
  // The value of `key`; with duplicate keys the last one wins, as in Go's
  // encoding/json, which the configs we read are usually written by.
  [[nodiscard]] std::optional<Value> Find(std::string_view key) const;

  // A short description for error messages: `string "1g"`, `number 1.5`,
  // `object`, `array`, `null`, `boolean true`.
  [[nodiscard]] std::string Describe() const;

 private:
  const yajl_val_s* v_;
};

// Limits that keep a hostile document from exhausting the stack or memory.
inline constexpr std::size_t kMaxDepth = 256;
inline constexpr std::size_t kMaxDocumentBytes = 64u << 20;

// An owned, parsed JSON document.
class Document {
 public:
  // Parses `text`. Errors name the byte offset and the problem on one line;
  // documents deeper than kMaxDepth, larger than kMaxDocumentBytes, or
  // holding strings with NUL characters are refused.
  static Result<Document> Parse(std::string_view text);

  [[nodiscard]] Value root() const { return Value(tree_.get()); }

 private:
  struct Free {
    void operator()(yajl_val_s* v) const;
  };
  explicit Document(yajl_val_s* tree) : tree_(tree) {}
  std::unique_ptr<yajl_val_s, Free> tree_;
};

}  // namespace vigil::json
