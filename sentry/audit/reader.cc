#include "sentry/audit/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "base/json/json_reader.h"
#include "base/strings.h"

namespace vigil::sentry::audit {
namespace {

// `text` as is, unless a control character would break the line.
std::string Printable(std::string_view text) {
  bool plain = std::none_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  return plain ? std::string(text) : Quote(text);
}

std::string ErrnoText(int error) {
  std::string_view name = ErrnoName(error);
  return name.empty() ? StrCat("errno ", error) : std::string(name);
}

// Rows of a table, right-aligned count then left-aligned columns.
std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      std::string pad(width[i] - cells[i].size(), ' ');
      if (i == 0) {
        text += pad + cells[i];
      } else {
        text += "  " + cells[i];
        if (i + 1 < cells.size()) text += pad;
      }
    }
    out += text + "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
  return out;
}

}  // namespace

Result<AuditLine> ParseAuditLine(std::string_view line) {
  Result<json::Document> doc = json::Document::Parse(line);
  if (!doc) return tl::unexpected(std::move(doc).error().Wrap("audit record"));
  json::Value root = doc->root();
  AuditLine out;
  if (std::optional<json::Value> dropped = root.Find("dropped"); dropped && !root.Find("syscall")) {
    std::optional<std::string_view> text = dropped->NumberText();
    std::uint64_t n = 0;
    bool ok = false;
    if (text) {
      auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
      ok = ec == std::errc() && ptr == text->data() + text->size();
    }
    if (!ok) {
      return Fail(StrCat("audit record: \"dropped\": expected a count, got ", dropped->Describe()));
    }
    out.dropped = n;
    if (std::optional<json::Value> time = root.Find("time")) {
      out.time = std::string(time->AsString().value_or(""));
    }
    return out;
  }
  ASSIGN_OR_RETURN(out.record, DecodeRecordObject(root));
  return out;
}

Result<std::vector<std::string>> AuditTail::ReadNewLines() {
  std::vector<std::string> lines;
  if (fd_) {
    RETURN_IF_ERROR(ReadAppended(lines));
    // Replaced (rotated, or written anew by rename): the old file is read to
    // its end above, the new one from its start below.
    struct stat now {};
    struct stat open {};
    if (::stat(path_.c_str(), &now) == 0 && ::fstat(fd_.Get(), &open) == 0 &&
        (now.st_ino != open.st_ino || now.st_dev != open.st_dev)) {
      fd_.Reset();
      offset_ = 0;
      partial_.clear();
    }
  }
  if (!fd_) {
    fd_.Reset(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd_) {
      if (errno == ENOENT) return lines;
      return FailErrno(StrCat("open ", path_));
    }
    RETURN_IF_ERROR(ReadAppended(lines));
  }
  return lines;
}

Result<void> AuditTail::ReadAppended(std::vector<std::string>& lines) {
  struct stat st {};
  if (::fstat(fd_.Get(), &st) != 0) return FailErrno(StrCat("stat ", path_));
  if (static_cast<std::uint64_t>(st.st_size) < offset_) {  // truncated
    offset_ = 0;
    partial_.clear();
  }
  char buf[16 << 10];
  while (true) {
    ssize_t n = ::pread(fd_.Get(), buf, sizeof buf, static_cast<off_t>(offset_));
    if (n < 0) {
      if (errno == EINTR) continue;
      return FailErrno(StrCat("read ", path_));
    }
    if (n == 0) return {};
    offset_ += static_cast<std::uint64_t>(n);
    std::string_view chunk(buf, static_cast<std::size_t>(n));
    while (!chunk.empty()) {
      std::size_t newline = chunk.find('\n');
      if (newline == std::string_view::npos) {
        partial_.append(chunk);
        break;
      }
      partial_.append(chunk.substr(0, newline));
      lines.push_back(std::move(partial_));
      partial_.clear();
      chunk.remove_prefix(newline + 1);
    }
  }
}

Result<std::vector<Record>> ReadAuditFile(const std::string& path, std::uint64_t* dropped) {
  // AuditTail treats a missing file as empty; a caller naming a file does not.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return FailErrno(StrCat("open ", path));
  AuditTail tail(path);
  ASSIGN_OR_RETURN(std::vector<std::string> lines, tail.ReadNewLines());
  std::vector<Record> records;
  records.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    Result<AuditLine> line = ParseAuditLine(lines[i]);
    if (!line) return tl::unexpected(std::move(line).error().Wrap(StrCat(path, ":", i + 1)));
    if (line->record) {
      records.push_back(std::move(*line->record));
    } else if (dropped != nullptr) {
      *dropped += line->dropped;
    }
  }
  return records;
}

Summary Summarize(std::span<const Record> records, std::uint64_t dropped) {
  Summary s;
  s.dropped = dropped;
  for (const Record& r : records) {
    // A summary of repeats stands for itself and the records it counts.
    const std::uint64_t calls = 1 + r.suppressed;
    s.total += calls;
    s.suppressed += r.suppressed;
    s.by_syscall[{r.event.empty() ? r.syscall : r.event, r.decision}] += calls;
    if (r.error != 0) s.by_errno[r.error] += calls;
    if (r.event == "dns") {
      for (const Arg& arg : r.args) {
        if (arg.name == "name") s.by_name[{arg.value, r.decision}] += calls;
      }
    }
  }
  return s;
}

namespace {

// Counts by (name, decision) as a table, largest first; the map's order
// (by name, then decision) breaks ties.
std::string CountTable(std::string_view what,
                       const std::map<std::pair<std::string, Decision>, std::uint64_t>& counts) {
  using Count = std::pair<std::pair<std::string, Decision>, std::uint64_t>;
  std::vector<Count> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::vector<std::string>> rows;
  for (const auto& [key, count] : sorted) {
    rows.push_back({StrCat(count), key.first, std::string(DecisionName(key.second))});
  }
  return Table({"COUNT", std::string(what), "DECISION"}, rows);
}

}  // namespace

std::string FormatSummary(const Summary& summary) {
  std::string out = CountTable("SYSCALL", summary.by_syscall);
  std::vector<std::vector<std::string>> rows;

  if (!summary.by_errno.empty()) {
    std::vector<std::pair<std::string, std::uint64_t>> errors;
    for (const auto& [error, count] : summary.by_errno)
      errors.emplace_back(ErrnoText(error), count);
    std::stable_sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    rows.clear();
    for (const auto& [name, count] : errors) rows.push_back({StrCat(count), name});
    out += "\n" + Table({"COUNT", "ERRNO"}, rows);
  }
  if (!summary.by_name.empty()) out += "\n" + CountTable("NAME", summary.by_name);
  out += StrCat("\ntotal ", summary.total, ", dropped ", summary.dropped, ", suppressed ",
                summary.suppressed, "\n");
  return out;
}

std::string FormatRecord(const Record& r) {
  std::string out = r.event.empty()
                        ? StrCat(r.time, "  pid ", r.pid, " tid ", r.tid, "  ", Printable(r.exe),
                                 "  ", Printable(r.syscall), "(")
                        : StrCat(r.time, "  pid ", r.pid, "  event ", Printable(r.event), "(");
  for (std::size_t i = 0; i < r.args.size(); ++i) {
    const Arg& arg = r.args[i];
    if (i > 0) out += ", ";
    out += arg.name;
    out += '=';
    out += arg.is_number ? arg.value : Quote(arg.value);
  }
  out += StrCat(") = ", DecisionName(r.decision));
  if (r.error != 0) out += StrCat(" ", ErrnoText(r.error));
  if (r.left_to_kernel) out += ", left to the kernel";
  out += StrCat("  ", r.latency_us, "us");
  if (r.suppressed != 0) {
    out += StrCat("  (and ", r.suppressed, " more like it", ", suppressed)");
  }
  return out;
}

std::string FormatDropped(std::string_view time, std::uint64_t dropped) {
  return StrCat(time, "  -- ", dropped, dropped == 1 ? " record" : " records",
                " dropped (the writer's buffer was full) --");
}

}  // namespace vigil::sentry::audit
