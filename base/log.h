// Runtime logging in the formats runc's callers read back: containerd and
// podman pass `--log FILE --log-format json` and show the user the last
// `"level":"error"` line.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace vigil::log {

enum class Level { kDebug, kInfo, kWarning, kError };
enum class Format { kText, kJson };

struct Options {
  std::string file;  // empty: standard error
  Format format = Format::kText;
  Level min_level = Level::kWarning;
};

// Parses "text" or "json".
Result<Format> ParseFormat(std::string_view name);

// Directs later messages to `options.file` (appended, created 0600 if
// missing). Until called, messages go to standard error as text.
Result<void> Configure(const Options& options);

// True when messages go to standard error, so callers do not print twice.
bool LogsToStderr();

// Writes one line (one write(2), so concurrent writers do not interleave):
//   text: time="2026-11-29T09:20:00.123456789Z" level=error msg="..."
//   json: {"level":"error","msg":"...","time":"2026-11-29T09:20:00.123456789Z"}
void Write(Level level, std::string_view message);

// Also hands every warning and error to `observer` (none: nullptr), on the
// thread that wrote it; a message the observer itself logs is not handed
// back. The supervisor puts its own faults into the audit this way.
using Observer = std::function<void(Level level, std::string_view message)>;
void SetObserver(Observer observer);

inline void Debug(std::string_view message) { Write(Level::kDebug, message); }
inline void Info(std::string_view message) { Write(Level::kInfo, message); }
inline void Warning(std::string_view message) { Write(Level::kWarning, message); }
inline void Error(std::string_view message) { Write(Level::kError, message); }

}  // namespace vigil::log
