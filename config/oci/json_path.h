// JsonPath: where a value sits in a document, for error messages such as
// `linux.resources.memory.limit: expected integer, got string "1g"`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vigil::config {

// A value type (it owns its text), so a path built from temporaries, e.g.
// `JsonPath at = path.Key("syscalls").Index(i);`, stays valid.
class JsonPath {
 public:
  // The document root.
  JsonPath() = default;

  // Keys that are not identifiers are quoted:
  // annotations["io.kubernetes.cri.container-type"].
  [[nodiscard]] JsonPath Key(std::string_view key) const;
  [[nodiscard]] JsonPath Index(std::size_t index) const;

  // "linux.namespaces[2].type"; the root is "(root)".
  [[nodiscard]] std::string ToString() const { return text_.empty() ? "(root)" : text_; }

 private:
  explicit JsonPath(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

}  // namespace vigil::config
