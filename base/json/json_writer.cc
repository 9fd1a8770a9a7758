#include "base/json/json_writer.h"

#include <yajl/yajl_gen.h>

#include <charconv>
#include <cstdlib>

namespace vigil::json {

Writer::Writer(Style style) : gen_(yajl_gen_alloc(nullptr)) {
  if (gen_ == nullptr) std::abort();
  yajl_gen_config(gen_, yajl_gen_validate_utf8, 1);
  if (style == Style::kPretty) {
    yajl_gen_config(gen_, yajl_gen_beautify, 1);
    yajl_gen_config(gen_, yajl_gen_indent_string, "\t");
  }
}

Writer::~Writer() { yajl_gen_free(gen_); }

void Writer::Check(int status) const {
  // Every remaining failure (a key outside an object, unbalanced End*) is a
  // bug in the caller, not bad data.
  if (status != yajl_gen_status_ok) std::abort();
}

void Writer::BeginObject() { Check(yajl_gen_map_open(gen_)); }
void Writer::EndObject() { Check(yajl_gen_map_close(gen_)); }
void Writer::BeginArray() { Check(yajl_gen_array_open(gen_)); }
void Writer::EndArray() { Check(yajl_gen_array_close(gen_)); }

void Writer::Key(std::string_view key) { String(key); }

void Writer::String(std::string_view value) {
  auto status =
      yajl_gen_string(gen_, reinterpret_cast<const unsigned char*>(value.data()), value.size());
  if (status == yajl_gen_invalid_string) {
    // Not UTF-8 (a host file name, a process's argv): keep the ASCII and mark
    // every other byte, rather than emit a document nobody can parse.
    std::string ascii(value);
    for (char& c : ascii) {
      if (static_cast<unsigned char>(c) >= 0x80) c = '?';
    }
    status =
        yajl_gen_string(gen_, reinterpret_cast<const unsigned char*>(ascii.data()), ascii.size());
  }
  Check(status);
}

void Writer::Int(std::int64_t value) {
  // The digits by hand, as for Uint: yajl_gen_integer goes through printf.
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  Check(yajl_gen_number(gen_, buf, end - buf));
}

void Writer::Uint(std::uint64_t value) {
  // yajl_gen_integer takes a signed long long; write the digits ourselves so
  // values above INT64_MAX (e.g. an "unlimited" rlimit) stay exact.
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  Check(yajl_gen_number(gen_, buf, end - buf));
}

void Writer::Bool(bool value) { Check(yajl_gen_bool(gen_, value)); }
void Writer::Null() { Check(yajl_gen_null(gen_)); }

std::string Writer::Take() {
  const unsigned char* buf = nullptr;
  size_t len = 0;
  yajl_gen_get_buf(gen_, &buf, &len);
  std::string out(reinterpret_cast<const char*>(buf), len);
  yajl_gen_clear(gen_);
  return out;
}

std::string_view Writer::View() const {
  const unsigned char* buf = nullptr;
  size_t len = 0;
  yajl_gen_get_buf(gen_, &buf, &len);
  return {reinterpret_cast<const char*>(buf), len};
}

void Writer::Reset() {
  yajl_gen_reset(gen_, nullptr);
  yajl_gen_clear(gen_);
}

}  // namespace vigil::json
