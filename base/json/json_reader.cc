#include "base/json/json_reader.h"

#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include <cstring>

#include "base/strings.h"

namespace vigil::json {
namespace {

// A first pass with yajl's event parser. yajl_tree_parse alone would accept
// any depth (and yajl_tree_free recurses, so a deep document overflows the
// stack), cannot report where an error is, and silently truncates strings at
// an escaped NUL. The event parser checks all three with the exact offset.
struct Precheck {
  std::size_t depth = 0;
  std::string problem;
};

int OnOpen(void* ctx) {
  auto* check = static_cast<Precheck*>(ctx);
  if (++check->depth > kMaxDepth) {
    check->problem = StrCat("nested deeper than ", kMaxDepth, " levels");
    return 0;
  }
  return 1;
}
int OnOpenMap(void* ctx) { return OnOpen(ctx); }
int OnOpenArray(void* ctx) { return OnOpen(ctx); }
int OnClose(void* ctx) {
  --static_cast<Precheck*>(ctx)->depth;
  return 1;
}
int OnString(void* ctx, const unsigned char* s, std::size_t len) {
  if (std::memchr(s, '\0', len) != nullptr) {
    static_cast<Precheck*>(ctx)->problem = "string contains a NUL character";
    return 0;
  }
  return 1;
}

constexpr yajl_callbacks kPrecheckCallbacks = {
    .yajl_null = nullptr,
    .yajl_boolean = nullptr,
    .yajl_integer = nullptr,
    .yajl_double = nullptr,
    .yajl_number = nullptr,
    .yajl_string = OnString,
    .yajl_start_map = OnOpenMap,
    .yajl_map_key = OnString,
    .yajl_end_map = OnClose,
    .yajl_start_array = OnOpenArray,
    .yajl_end_array = OnClose,
};

Result<void> CheckDocument(std::string_view text) {
  if (text.size() > kMaxDocumentBytes) {
    return Fail(StrCat("invalid JSON: document is larger than ", kMaxDocumentBytes, " bytes"));
  }
  Precheck check;
  yajl_handle handle = yajl_alloc(&kPrecheckCallbacks, nullptr, &check);
  auto* data = reinterpret_cast<const unsigned char*>(text.data());
  yajl_status status = yajl_parse(handle, data, text.size());
  if (status == yajl_status_ok) status = yajl_complete_parse(handle);
  Result<void> result;
  if (status != yajl_status_ok) {
    std::size_t offset = yajl_get_bytes_consumed(handle);
    std::string problem = check.problem;
    if (problem.empty()) {
      unsigned char* message = yajl_get_error(handle, 0, data, text.size());
      problem = reinterpret_cast<char*>(message);
      yajl_free_error(handle, message);
      // yajl's messages read "lexical error: invalid char in json text.";
      // keep them on one line without the trailing period and newline.
      while (!problem.empty() && (problem.back() == '\n' || problem.back() == '.')) {
        problem.pop_back();
      }
    }
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      problem = "document is empty";
    }
    result = Fail(StrCat("invalid JSON at byte ", offset, ": ", problem));
  }
  yajl_free(handle);
  return result;
}

}  // namespace

void Document::Free::operator()(yajl_val_s* v) const { yajl_tree_free(v); }

Result<Document> Document::Parse(std::string_view text) {
  RETURN_IF_ERROR(CheckDocument(text));
  // yajl_tree_parse wants a NUL-terminated buffer.
  std::string copy(text);
  char error[256] = "";
  yajl_val tree = yajl_tree_parse(copy.c_str(), error, sizeof error);
  if (tree == nullptr) return Fail(StrCat("invalid JSON: ", error));
  return Document(tree);
}

Kind Value::kind() const {
  switch (v_->type) {
    case yajl_t_string:
      return Kind::kString;
    case yajl_t_number:
      return Kind::kNumber;
    case yajl_t_object:
      return Kind::kObject;
    case yajl_t_array:
      return Kind::kArray;
    case yajl_t_true:
    case yajl_t_false:
      return Kind::kBool;
    default:
      return Kind::kNull;
  }
}

std::optional<bool> Value::AsBool() const {
  if (v_->type == yajl_t_true) return true;
  if (v_->type == yajl_t_false) return false;
  return std::nullopt;
}

std::optional<std::string_view> Value::AsString() const {
  if (v_->type != yajl_t_string) return std::nullopt;
  return std::string_view(v_->u.string);
}

std::optional<std::string_view> Value::NumberText() const {
  if (v_->type != yajl_t_number) return std::nullopt;
  return std::string_view(v_->u.number.r);
}

std::size_t Value::size() const {
  if (v_->type == yajl_t_array) return v_->u.array.len;
  if (v_->type == yajl_t_object) return v_->u.object.len;
  return 0;
}

Value Value::Element(std::size_t i) const { return Value(v_->u.array.values[i]); }

std::string_view Value::MemberKey(std::size_t i) const { return v_->u.object.keys[i]; }

Value Value::MemberValue(std::size_t i) const { return Value(v_->u.object.values[i]); }

std::optional<Value> Value::Find(std::string_view key) const {
  if (v_->type != yajl_t_object) return std::nullopt;
  for (std::size_t i = v_->u.object.len; i-- > 0;) {
    if (key == v_->u.object.keys[i]) return Value(v_->u.object.values[i]);
  }
  return std::nullopt;
}

std::string Value::Describe() const {
  constexpr std::size_t kMaxShown = 40;
  switch (kind()) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return *AsBool() ? "boolean true" : "boolean false";
    case Kind::kNumber:
      return StrCat("number ", *NumberText());
    case Kind::kString: {
      std::string_view s = *AsString();
      if (s.size() > kMaxShown) {
        // Cut before a character, not inside one: the message stays UTF-8.
        std::size_t cut = kMaxShown;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
        return StrCat("string ", Quote(s.substr(0, cut)), "...");
      }
      return StrCat("string ", Quote(s));
    }
    case Kind::kObject:
      return "object";
    case Kind::kArray:
      return "array";
  }
  return "unknown";
}

}  // namespace vigil::json
