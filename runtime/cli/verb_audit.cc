// vigil audit: the sentry's audit records for a container (docs/audit.md),
// as text, as the stored JSON lines, or as counts; --follow keeps printing
// new records until the container stops.
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "base/strings.h"
#include "runtime/cli/verbs.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/status.h"
#include "sentry/audit/reader.h"

namespace vigil::cli {
namespace {

namespace audit = sentry::audit;

// How often --follow looks for new lines and for the container's end.
constexpr auto kFollowPoll = std::chrono::milliseconds(200);

struct Options {
  bool denied = false;
  bool summary = false;
  bool json = false;
};

// Where the sentry writes: the record says (--audit or the annotation
// dev.vigil.audit); otherwise audit.jsonl in the container's state directory.
std::string AuditPath(const std::string& root, const runtime::ContainerRecord& record) {
  if (!record.audit_path.empty()) return record.audit_path;
  return StrCat(root, "/", record.id, "/", runtime::kAuditLogName);
}

bool Stopped(const std::string& root, const std::string& id) {
  Result<runtime::ContainerRecord> record = runtime::ReadRecord(root, id);
  return !record || runtime::CurrentStatus(*record) == runtime::ContainerStatus::kStopped;
}

// Prints (or, with --summary, counts) complete lines as they come.
class Printer {
 public:
  explicit Printer(const Options& options) : options_(options) {}

  Result<void> Lines(const std::vector<std::string>& lines, const std::string& path) {
    for (const std::string& text : lines) {
      ++line_number_;
      if (text.empty()) continue;
      Result<audit::AuditLine> line = audit::ParseAuditLine(text);
      if (!line) {
        return tl::unexpected(std::move(line).error().Wrap(StrCat(path, ":", line_number_)));
      }
      if (!line->record) {
        // Dropped records may have been denials: keep the note under --denied.
        dropped_ += line->dropped;
        if (!options_.summary) Print(options_.json ? text : audit::FormatDropped(line->time,
                                                                                line->dropped));
        continue;
      }
      const audit::Record& record = *line->record;
      if (options_.denied && record.decision != audit::Decision::kDeny &&
          record.decision != audit::Decision::kKill) {
        continue;
      }
      if (options_.summary) {
        records_.push_back(record);
      } else {
        Print(options_.json ? text : audit::FormatRecord(record));
      }
    }
    std::fflush(stdout);  // a reader of --follow waits on each line
    return {};
  }

  void Finish() {
    if (!options_.summary) return;
    std::fputs(audit::FormatSummary(audit::Summarize(records_, dropped_)).c_str(), stdout);
  }

 private:
  static void Print(const std::string& line) {
    std::fputs(line.c_str(), stdout);
    std::fputc('\n', stdout);
  }

  Options options_;
  std::size_t line_number_ = 0;
  std::uint64_t dropped_ = 0;
  std::vector<audit::Record> records_;
};

}  // namespace

const FlagSpec kAuditFlags[4] = {
    {"denied", "", false, "", "only the records the sentry denied or killed"},
    {"follow", "f", false, "", "keep printing new records until the container stops"},
    {"format", "", true, "FORMAT", "\"text\" (default) or \"json\": the lines as stored"},
    {"summary", "", false, "", "print counts per syscall, decision and errno instead"},
};

Result<int> RunAudit(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("container id required");
  if (args.size() > 1) return Fail(StrCat("unexpected argument ", Quote(args[1])));
  const std::string& id = args[0];
  const std::string& root = invocation.global.root;

  Options options{.denied = invocation.flags.IsSet("denied"),
                  .summary = invocation.flags.IsSet("summary")};
  std::string format = invocation.flags.Value("format").value_or("text");
  if (format != "text" && format != "json") {
    return Fail(StrCat("unknown format ", Quote(format), ": use \"text\" or \"json\""));
  }
  options.json = format == "json";
  bool follow = invocation.flags.IsSet("follow");
  if (options.summary && (options.json || follow)) {
    return Fail("--summary prints one text table: it takes neither --format json nor --follow");
  }

  ASSIGN_OR_RETURN(runtime::ContainerRecord record, runtime::ReadRecord(root, id));
  audit::AuditTail tail(AuditPath(root, record));
  Printer printer(options);
  while (true) {
    // Look at the status before reading: lines written before the stop are
    // then on disk (the sentry flushes before it exits) and printed below.
    bool stopped = !follow || Stopped(root, id);
    ASSIGN_OR_RETURN(std::vector<std::string> lines, tail.ReadNewLines());
    RETURN_IF_ERROR(printer.Lines(lines, tail.path()));
    if (stopped) break;
    std::this_thread::sleep_for(kFollowPoll);
  }
  printer.Finish();
  return 0;
}

}  // namespace vigil::cli
