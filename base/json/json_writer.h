// JsonWriter: builds a JSON text (yajl's generator underneath).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct yajl_gen_t;

namespace vigil::json {

// Calls must form a valid document (keys inside objects, balanced Begin/End);
// a misuse is a programming error and aborts.
class Writer {
 public:
  enum class Style { kCompact, kPretty };

  explicit Writer(Style style = Style::kCompact);
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer();

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);
  void String(std::string_view value);
  void Int(std::int64_t value);
  void Uint(std::uint64_t value);
  void Bool(bool value);
  void Null();

  // A member of the object being written: its key, then its value.
  void StringMember(std::string_view key, std::string_view value) {
    Key(key);
    String(value);
  }
  void IntMember(std::string_view key, std::int64_t value) {
    Key(key);
    Int(value);
  }
  void UintMember(std::string_view key, std::uint64_t value) {
    Key(key);
    Uint(value);
  }
  void BoolMember(std::string_view key, bool value) {
    Key(key);
    Bool(value);
  }

  // The text written so far; pretty output ends with a newline.
  [[nodiscard]] std::string Take();

  // The text written so far, valid until the next call on the writer.
  [[nodiscard]] std::string_view View() const;
  // Forgets the text and the document: the next calls start a new one. A
  // writer reused this way keeps its buffer (no allocation per document).
  void Reset();

 private:
  void Check(int status) const;
  yajl_gen_t* gen_;
};

}  // namespace vigil::json
