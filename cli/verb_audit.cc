// vigil audit: the sentry's audit records for a container (docs/audit.md),
// as text, as the stored JSON lines, or as counts, the rotated files first;
// --follow keeps printing new records until the container stops. The
// container is named as Docker users name it (cli/audit_target.h); without
// one, the audited containers are listed. The log outlives the container
// (ROOT/.audit) until --prune; --file reads any log.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/strings.h"
#include "base/units.h"
#include "cli/audit_target.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "runtime/container/known_roots.h"
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
  std::optional<std::string> id;  // only this container's records
};

// Where the sentry writes for container `id`: its record says (--audit, the
// annotation dev.vigil.audit, or the state root's kept log); for a
// container that is gone, the kept log if there is one.
Result<std::string> AuditPath(const std::string& root, const std::string& id) {
  Result<runtime::ContainerRecord> record = runtime::ReadRecord(root, id);
  if (record) {
    if (!record->audit_path.empty()) return record->audit_path;
    // Recorded before logs had a path of their own.
    return StrCat(root, "/", id, "/", runtime::kAuditLogName);
  }
  const std::string kept = runtime::KeptAuditLogPath(root, id);
  if (::access(kept.c_str(), F_OK) == 0) return kept;
  if (::access(StrCat(root, "/", id).c_str(), F_OK) == 0) return tl::unexpected(record.error());
  return Fail(StrCat("container ", Quote(id), " does not exist and ", root, "/",
                     runtime::kKeptAuditDir,
                     " keeps no audit log of it (a log elsewhere: --file)"));
}

// Removes the kept logs (and their rotated files) of containers that no
// longer exist, last written more than `older_than` ago; prints each path.
Result<void> Prune(const std::string& root, std::chrono::nanoseconds older_than) {
  const std::filesystem::path dir = std::filesystem::path(root) / runtime::kKeptAuditDir;
  std::error_code ec;
  std::filesystem::directory_iterator entries(dir, ec);
  if (ec == std::errc::no_such_file_or_directory) return {};
  if (ec) return FailErrno(ec.value(), StrCat("read ", dir.string()));
  const auto now = std::filesystem::file_time_type::clock::now();
  for (const std::filesystem::directory_entry& entry : entries) {
    const std::string name = entry.path().filename().string();
    const std::size_t log = name.find(".jsonl");
    if (log == std::string::npos || log == 0) continue;
    if (::access(StrCat(root, "/", name.substr(0, log)).c_str(), F_OK) == 0) continue;
    const auto written = entry.last_write_time(ec);
    if (ec || now - written < older_than) continue;
    if (std::filesystem::remove(entry.path(), ec)) std::printf("%s\n", entry.path().c_str());
  }
  return {};
}

// The files rotation moved `path` to (path.1 the newest, as
// sentry/audit/log.cc names them), oldest first.
std::vector<std::string> RotatedFiles(const std::string& path) {
  std::vector<std::string> files;
  for (int i = 1; ::access(StrCat(path, ".", i).c_str(), F_OK) == 0; ++i) {
    files.insert(files.begin(), StrCat(path, ".", i));
  }
  return files;
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
    if (path != path_) {  // line numbers are per file
      path_ = path;
      line_number_ = 0;
    }
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
        if (!options_.summary)
          Print(options_.json ? text : audit::FormatDropped(line->time, line->dropped));
        continue;
      }
      const audit::Record& record = *line->record;
      if (options_.id && record.container_id != *options_.id) continue;
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
  std::string path_;
  std::size_t line_number_ = 0;
  std::uint64_t dropped_ = 0;
  std::vector<audit::Record> records_;
};

// Without an id: every container with an audit in `roots`, its status
// ("deleted" for a kept log alone) and its log.
void PrintAudited(const std::vector<std::string>& roots) {
  std::vector<std::vector<std::string>> rows = {{"ID", "STATUS", "LOG"}};
  for (const std::string& root : roots) {
    for (const std::string& id : AuditedIds(root)) {
      Result<runtime::ContainerRecord> record = runtime::ReadRecord(root, id);
      const std::string status =
          record ? std::string(config::NameOf(runtime::CurrentStatus(*record))) : "deleted";
      Result<std::string> path = AuditPath(root, id);
      rows.push_back({id, status, path ? *path : path.error().message});
    }
  }
  PrintTable(rows);
}

}  // namespace

const FlagSpec kAuditFlags[7] = {
    {"denied", "", false, "", "only the records the sentry denied or killed"},
    {"follow", "f", false, "", "keep printing new records until the container stops"},
    {"format", "", true, "FORMAT", "\"text\" (default) or \"json\": the lines as stored"},
    {"summary", "", false, "", "print counts per syscall, decision and errno instead"},
    {"file", "", true, "FILE", "read FILE (any audit log; with an id, only that container's)"},
    {"prune", "", false, "",
     "remove the kept logs (ROOT/.audit) of containers that no longer exist"},
    {"older-than", "", true, "DURATION",
     "with --prune: only logs last written before this long ago"},
};

Result<int> RunAudit(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.size() > 1) return Fail(StrCat("unexpected argument ", Quote(args[1])));
  const std::string& root = invocation.global.root;
  const std::optional<std::string> file = invocation.flags.Value("file");
  if (invocation.flags.IsSet("prune")) {
    if (!args.empty() || file) return Fail("--prune takes neither a container id nor --file");
    std::chrono::nanoseconds older_than{0};
    if (std::optional<std::string> age = invocation.flags.Value("older-than")) {
      ASSIGN_OR_RETURN(older_than, ParseGoDuration("--older-than", *age));
    }
    RETURN_IF_ERROR(Prune(root, older_than));
    return 0;
  }
  if (invocation.flags.Value("older-than")) return Fail("--older-than goes with --prune");
  // Without --root: wherever vigil made containers (dockerd's root too).
  const std::vector<std::string> roots =
      invocation.global.root_given ? std::vector<std::string>{root}
                                   : runtime::KnownRoots(root, runtime::DefaultStateRoot());
  if (args.empty() && !file) {
    PrintAudited(roots);
    return 0;
  }

  Options options{.denied = invocation.flags.IsSet("denied"),
                  .summary = invocation.flags.IsSet("summary")};
  std::string audit_root = root;
  if (!args.empty() && file) {
    options.id = args[0];  // only this id's records of the file
  } else if (!args.empty()) {
    ASSIGN_OR_RETURN(AuditTarget target, FindAuditTarget(args[0], roots, DockerIdOf));
    options.id = target.id;
    audit_root = target.root;
  }
  std::string format = invocation.flags.Value("format").value_or("text");
  if (format != "text" && format != "json") {
    return Fail(StrCat("unknown format ", Quote(format), ": use \"text\" or \"json\""));
  }
  options.json = format == "json";
  bool follow = invocation.flags.IsSet("follow");
  if (options.summary && (options.json || follow)) {
    return Fail("--summary prints one text table: it takes neither --format json nor --follow");
  }

  if (follow && !options.id)
    return Fail("--follow needs the container id: it ends when the container does");
  std::string path;
  if (file) {
    path = *file;
  } else {
    ASSIGN_OR_RETURN(path, AuditPath(audit_root, *options.id));
  }
  if (::access(path.c_str(), F_OK) != 0 && file) return FailErrno(StrCat("open ", path));
  Printer printer(options);
  // What rotation moved aside first, then the current file.
  for (const std::string& rotated : RotatedFiles(path)) {
    audit::AuditTail whole(rotated);
    ASSIGN_OR_RETURN(std::vector<std::string> lines, whole.ReadNewLines());
    RETURN_IF_ERROR(printer.Lines(lines, rotated));
  }
  audit::AuditTail tail(path);
  while (true) {
    // Look at the status before reading: lines written before the stop are
    // then on disk (the sentry flushes before it exits) and printed below.
    bool stopped = !follow || Stopped(audit_root, *options.id);
    ASSIGN_OR_RETURN(std::vector<std::string> lines, tail.ReadNewLines());
    RETURN_IF_ERROR(printer.Lines(lines, tail.path()));
    if (stopped) break;
    std::this_thread::sleep_for(kFollowPoll);
  }
  printer.Finish();
  return 0;
}

}  // namespace vigil::cli
