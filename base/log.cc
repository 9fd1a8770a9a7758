#include "base/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "base/time.h"
#include "base/unique_fd.h"

namespace vigil::log {
namespace {

struct Sink {
  UniqueFd file;  // invalid: standard error
  Format format = Format::kText;
  Level min_level = Level::kWarning;
  Observer observer;
};

Sink& TheSink() {
  static Sink sink;
  return sink;
}

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarning:
      return "warning";
    case Level::kError:
      return "error";
  }
  return "error";
}

std::string FormatLine(Format format, Level level, std::string_view message) {
  if (format == Format::kJson) {
    json::Writer w;
    w.BeginObject();
    w.StringMember("level", LevelName(level));
    w.StringMember("msg", message);
    w.StringMember("time", Rfc3339NanoNow());
    w.EndObject();
    return w.Take() + "\n";
  }
  return StrCat("time=\"", Rfc3339NanoNow(), "\" level=", LevelName(level), " msg=", Quote(message),
                "\n");
}

void WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere left to report a logging failure
    text.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

Result<Format> ParseFormat(std::string_view name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  return Fail(StrCat("invalid log format ", Quote(name), ": expected \"text\" or \"json\""));
}

Result<void> Configure(const Options& options) {
  Sink& sink = TheSink();
  if (!options.file.empty()) {
    int fd = ::open(options.file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return FailErrno(StrCat("open log file ", options.file));
    sink.file.Reset(fd);
  } else {
    sink.file.Reset();
  }
  sink.format = options.format;
  sink.min_level = options.min_level;
  return {};
}

bool LogsToStderr() { return !TheSink().file.Valid(); }

void SetObserver(Observer observer) { TheSink().observer = std::move(observer); }

void Write(Level level, std::string_view message) {
  const Sink& sink = TheSink();
  if (level >= Level::kWarning && sink.observer) {
    static thread_local bool observing = false;
    if (!observing) {
      observing = true;
      sink.observer(level, message);
      observing = false;
    }
  }
  if (level < sink.min_level) return;
  int fd = sink.file.Valid() ? sink.file.Get() : STDERR_FILENO;
  WriteAll(fd, FormatLine(sink.format, level, message));
}

}  // namespace vigil::log
