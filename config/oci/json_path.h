// JsonPath: where a value sits in a document, for error messages such as
// `linux.resources.memory.limit: expected integer, got string "1g"`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vigil::config {

// A chain of nodes that lives on the decoder's stack; the string is only
// built when an error needs it.
class JsonPath {
 public:
  // The document root (prints as "" when no key follows, e.g. "(root)").
  JsonPath() = default;

  [[nodiscard]] JsonPath Key(std::string_view key) const { return JsonPath(this, key, 0, false); }
  [[nodiscard]] JsonPath Index(std::size_t index) const { return JsonPath(this, {}, index, true); }

  // "linux.namespaces[2].type"; keys that are not identifiers are quoted:
  // annotations["io.kubernetes.cri.container-type"]. The root is "(root)".
  [[nodiscard]] std::string ToString() const;

 private:
  JsonPath(const JsonPath* parent, std::string_view key, std::size_t index, bool is_index)
      : parent_(parent), key_(key), index_(index), is_index_(is_index) {}
  void AppendTo(std::string& out) const;

  const JsonPath* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  bool is_index_ = false;
};

}  // namespace vigil::config
