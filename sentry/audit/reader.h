// Reading audit logs back: whole files, files still being written, counts
// per syscall and decision, and text for people (`vigil audit`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/audit/record.h"

namespace vigil::sentry::audit {

// One line of an audit file: a record, or the writer's note that it dropped
// `dropped` records ({"time":..,"dropped":N}).
struct AuditLine {
  std::optional<Record> record;
  std::string time;           // of a "dropped" line
  std::uint64_t dropped = 0;  // N of a "dropped" line
};

// Parses one line (without its newline).
Result<AuditLine> ParseAuditLine(std::string_view line);

// Reads a file that may still be growing. Only lines ending in '\n' are
// returned: the writer may be in the middle of the last one, which comes
// out whole on a later call.
class AuditTail {
 public:
  explicit AuditTail(std::string path) : path_(std::move(path)) {}

  // The complete lines added since the last call, without their newlines.
  // A file that does not exist (yet) has none. A file that shrank (was
  // truncated) is read again from its start; so is a file replaced under
  // the same path, once the old one is read to its end.
  Result<std::vector<std::string>> ReadNewLines();

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  Result<void> ReadAppended(std::vector<std::string>& lines);

  std::string path_;
  UniqueFd fd_;
  std::uint64_t offset_ = 0;  // bytes consumed, including partial_
  std::string partial_;       // an unterminated last line
};

// The records of the audit file at `path`, skipping "dropped" lines (their
// counts are added to `*dropped` when given) and an unterminated last line.
// Any other line that does not parse is an error naming the path and line.
Result<std::vector<Record>> ReadAuditFile(const std::string& path,
                                          std::uint64_t* dropped = nullptr);

struct Summary {
  std::uint64_t total = 0;       // records counted, with the repeats summaries stand for
  std::uint64_t dropped = 0;     // records the writer reported dropped
  std::uint64_t suppressed = 0;  // repeats counted, not written (repeats.h)
  std::map<std::pair<std::string, Decision>, std::uint64_t> by_syscall;
  std::map<int, std::uint64_t> by_errno;  // records with an errno only
  // The names the sandbox's resolver was asked ("dns" records), by
  // decision: what the code tried to reach, and what it was refused.
  std::map<std::pair<std::string, Decision>, std::uint64_t> by_name;
};

Summary Summarize(std::span<const Record> records, std::uint64_t dropped = 0);

// Aligned text tables, largest count first (ties in name order):
//   COUNT  SYSCALL  DECISION
//       3  openat   deny
//   COUNT  ERRNO
//       3  EACCES
//   COUNT  NAME             DECISION
//       2  api.example.com  allow
//   total 3, dropped 0, suppressed 0
std::string FormatSummary(const Summary& summary);

// One record for people, on one line (strings quoted, control characters
// escaped):
//   2026-11-29T11:00:00.123Z  pid 12 tid 12  /bin/cat  openat(path="/etc/shadow",
//   flags="O_RDONLY") = deny EACCES  4us
// and for a summary of repeats "  (and N more like it, suppressed)".
std::string FormatRecord(const Record& record);

// A "dropped" line for people: "TIME  -- N records dropped --".
std::string FormatDropped(std::string_view time, std::uint64_t dropped);

}  // namespace vigil::sentry::audit
