// vigil ps: the processes of a container. `--format json` prints their host
// pids as a JSON array (containerd's shim parses it as []int); the table
// runs the host's ps(1) with the arguments after the id (default -ef) and
// keeps its header and the lines whose PID column is one of them, as runc
// does.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <sstream>

#include "base/json/json_writer.h"
#include "base/run_capturing.h"
#include "base/strings.h"
#include "base/unique_fd.h"
#include "cli/verbs.h"
#include "lifecycle/inspect.h"

namespace vigil::cli {
namespace {

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (true) {
    pos = line.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) return fields;
    std::size_t end = line.find_first_of(" \t", pos);
    fields.push_back(line.substr(pos, end - pos));
    if (end == std::string_view::npos) return fields;
    pos = end;
  }
}

// ps's output cut down to its header and the lines of `pids`, located by
// the header's "PID" column.
Result<std::string> FilterTable(std::string_view table, const std::vector<pid_t>& pids) {
  std::size_t eol = table.find('\n');
  std::string_view header = table.substr(0, eol);
  std::vector<std::string_view> titles = Fields(header);
  auto column = std::find(titles.begin(), titles.end(), "PID");
  if (column == titles.end()) return Fail("couldn't find PID field in ps output");
  std::size_t index = static_cast<std::size_t>(column - titles.begin());
  std::string out = StrCat(header, "\n");
  std::string_view rest = eol == std::string_view::npos ? "" : table.substr(eol + 1);
  while (!rest.empty()) {
    eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? "" : rest.substr(eol + 1);
    if (line.empty()) continue;
    std::vector<std::string_view> fields = Fields(line);
    pid_t pid = 0;
    std::string_view text = index < fields.size() ? fields[index] : "";
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      return Fail(StrCat("unable to parse pid from ps line ", Quote(line)));
    }
    if (std::find(pids.begin(), pids.end(), pid) != pids.end()) out += StrCat(line, "\n");
  }
  return out;
}

}  // namespace

const FlagSpec kPsFlags[1] = {
    {"format", "f", true, "FORMAT", "\"table\" (default: ps(1) output) or \"json\" (the pids)"},
};

Result<int> RunPs(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("container id required");
  std::string format = invocation.flags.Value("format").value_or("table");
  if (format != "table" && format != "json") {
    return Fail(StrCat("--format: expected \"table\" or \"json\", got ", Quote(format)));
  }
  ASSIGN_OR_RETURN(std::vector<pid_t> pids,
                   lifecycle::ContainerProcesses(invocation.global.root, args[0]));
  if (format == "json") {
    // An empty list is "[]"; runc prints Go's nil slice as "null" for a
    // stopped container, which every []int decoder reads the same way.
    json::Writer w;
    w.BeginArray();
    for (pid_t pid : pids) w.Int(pid);
    w.EndArray();
    std::printf("%s\n", w.Take().c_str());
    return 0;
  }
  std::vector<std::string> argv = {"ps"};
  argv.insert(argv.end(), args.begin() + 1, args.end());
  if (argv.size() == 1) argv.push_back("-ef");
  ASSIGN_OR_RETURN(Captured ps, RunCapturing(argv, Stderr::kCaptured));
  if (ps.status != 0) {
    // ps explains itself on its first line and follows with usage text.
    std::istringstream lines(ps.output);
    std::string first;
    while (first.empty() && std::getline(lines, first)) {
    }
    return Fail(StrCat("ps exited with status ", ps.status, ": ", first));
  }
  ASSIGN_OR_RETURN(std::string table, FilterTable(ps.output, pids));
  std::fputs(table.c_str(), stdout);
  return 0;
}

}  // namespace vigil::cli
