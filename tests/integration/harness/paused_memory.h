// Test support for pause --release-memory: a workload that holds memory and
// a checksum of it, and `vigil state`'s "memory" of a paused container.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/json/json_reader.h"

namespace vigil::integration {

// `state`'s "memory" object (cli/container_json.h).
struct PausedMemoryView {
  std::uint64_t resident = 0;
  std::uint64_t swapped = 0;
  bool released = false;
  std::uint64_t before = 0;
  std::uint64_t after = 0;
  std::string note;
};

inline std::uint64_t NumberIn(const json::Value& object, std::string_view key) {
  std::uint64_t n = 0;
  if (std::optional<json::Value> v = object.Find(key)) {
    if (std::optional<std::string_view> text = v->NumberText()) {
      std::from_chars(text->data(), text->data() + text->size(), n);
    }
  }
  return n;
}

// Null when the state has no "memory" (not paused, or unreadable).
inline std::optional<PausedMemoryView> PausedMemoryIn(std::string_view state_json) {
  Result<json::Document> doc = json::Document::Parse(state_json);
  if (!doc) return std::nullopt;
  std::optional<json::Value> memory = doc->root().Find("memory");
  if (!memory) return std::nullopt;
  PausedMemoryView view{.resident = NumberIn(*memory, "resident"),
                        .swapped = NumberIn(*memory, "swapped")};
  if (std::optional<json::Value> release = memory->Find("release")) {
    view.released = true;
    view.before = NumberIn(*release, "before");
    view.after = NumberIn(*release, "after");
  }
  if (std::optional<json::Value> note = memory->Find("note")) {
    view.note = std::string(note->AsString().value_or(""));
  }
  return view;
}

// A busybox shell holding `mib` MiB of random bytes (base64, in its own
// heap) that writes their md5sum to /out/sum.N each time it gets SIGUSR1
// (N counting from 1), after writing the first to /out/sum.0.
inline std::string HeapHolderScript(int mib) {
  return "x=$(dd if=/dev/urandom bs=1M count=" + std::to_string(mib) +
         " 2>/dev/null | base64); n=0; "
         "sum() { echo \"$x\" | md5sum > /out/sum.tmp; mv /out/sum.tmp /out/sum.$n; "
         "n=$((n+1)); }; trap sum USR1; sum; while true; do sleep 1; done";
}

}  // namespace vigil::integration
