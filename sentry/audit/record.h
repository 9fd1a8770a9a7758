// One audit record: what the sentry decided about one mediated syscall, and
// its JSON-lines encoding (docs/design.md, "Audit"; docs/audit.md documents the
// format field by field).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/result.h"

namespace vigil::sentry::audit {

// What the sentry did with the syscall. Names: "allow", "deny", "emulate",
// "kill".
// kNone: a report (a "supervisor" event), not a decision.
enum class Decision { kAllow, kDeny, kEmulate, kKill, kNone };

// One decoded argument, paths as resolved. A number is written to JSON as a
// number when `value` is a canonical decimal integer ("-1", "4096"); any
// other value ("0x1ff", "O_RDONLY|O_CLOEXEC") is a string.
struct Arg {
  std::string name;
  std::string value;
  bool is_number = false;
  bool operator==(const Arg&) const = default;
};

struct Record {
  std::string time;  // RFC 3339 with nanoseconds, UTC (Rfc3339NanoNow)
  std::string container_id;
  pid_t pid = 0;  // host pids of the workload's thread group and thread
  pid_t tid = 0;
  std::string exe;      // the workload's executable, as resolved
  std::string syscall;  // its name in the syscall table: "openat"
  // Set instead of `syscall` for what happened to the container rather
  // than a call it made ("timeout"): written as "event", with `args` its
  // details and pid/tid its init's.
  std::string event;
  std::vector<Arg> args;
  Decision decision = Decision::kAllow;
  int error = 0;  // the errno returned to the workload, 0 if none
  // Decided by the sentry, then made by the kernel (CONTINUE): what came
  // of the call is not known here, so `error` stays 0.
  bool left_to_kernel = false;
  std::uint32_t latency_us = 0;  // notification received to answer sent
  // A summary of repeats (repeats.h): this many more records of this kind
  // were counted instead of written. 0 for an ordinary record.
  std::uint64_t suppressed = 0;
  bool operator==(const Record&) const = default;
};

// "allow", "deny", "emulate" or "kill".
std::string_view DecisionName(Decision decision);
// The inverse of DecisionName; nullopt for any other text.
std::optional<Decision> ParseDecision(std::string_view name);

// The symbolic name of an errno value ("EACCES" for 13), from glibc's
// strerrorname_np; empty for 0 and for numbers glibc has no name for.
std::string_view ErrnoName(int error);
// The inverse of ErrnoName, also accepting the aliases EWOULDBLOCK,
// EDEADLOCK and ENOTSUP; nullopt for an unknown name.
std::optional<int> ParseErrnoName(std::string_view name);

// Writes `record` as one JSON object into `w` ("event":.. in place of
// "syscall" for an event):
//   {"time":..,"id":..,"pid":..,"tid":..,"exe":..,"syscall":..,
//    "args":{NAME:VALUE,..},"decision":..,"errno":"EACCES","leftToKernel":true,
//    "latencyUs":..,"suppressed":N}
// "errno" is omitted when 0, and is a number when ErrnoName has no name;
// "leftToKernel" is omitted when false, "suppressed" when 0.
// Bytes that are not UTF-8 become '?' (json::Writer's rule).
void WriteRecord(json::Writer& w, const Record& record);

// WriteRecord into a fresh writer: one JSON object, no newline.
std::string EncodeRecord(const Record& record);

// The inverse of EncodeRecord. Unknown keys are ignored; "args", "errno",
// "leftToKernel" and "suppressed" may be absent, and "event" stands in for
// "syscall" in an event, every other field is required. Errors name the field:
// `audit record: "pid": expected integer, got string "x"`.
Result<Record> DecodeRecord(std::string_view line);

// DecodeRecord for an already parsed JSON value (the reader parses each line
// once to tell records from "dropped" lines).
Result<Record> DecodeRecordObject(json::Value object);

}  // namespace vigil::sentry::audit
