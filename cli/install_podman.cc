// podman's containers.conf: vigil under [engine.runtimes], and in
// runtime_supports_json.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "base/strings.h"
#include "cli/install_edits.h"
#include "cli/install_toml.h"

namespace vigil::cli::install {
namespace {

// Podman's own list (containers.conf(5)) plus vigil: setting the key replaces
// the default, so the defaults stay in it.
constexpr std::string_view kJsonRuntimes = R"("crun", "runc", "kata", "runsc", "youki", "krun")";

}  // namespace

Result<Edit> EditPodman(std::string_view text, const Registration* add, std::string_view name) {
  std::vector<std::string> lines = SplitLines(text);
  ASSIGN_OR_RETURN(bool had_block, StripBlocks(lines, name));
  if (add == nullptr) return Edit{had_block ? JoinLines(lines) : std::string(text), had_block, {}};
  if (!add->runtime_args.empty()) {
    return Fail(
        "containers.conf has no arguments for a runtime: drop --runtime-args (podman run "
        "--runtime-flag passes them)");
  }

  std::optional<std::size_t> engine, engine_runtimes;
  bool json_listed = false;
  std::string table;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (std::optional<std::string> t = TableName(lines[i])) {
      table = *t;
      if (table == "engine" && !engine) engine = i;
      if (table == "engine.runtimes" && !engine_runtimes) engine_runtimes = i;
      continue;
    }
    std::string key = KeyOf(lines[i]);
    if ((table == "engine.runtimes" && key == name) ||
        (table == "engine" && key == StrCat("runtimes.", name))) {
      return Fail(StrCat("line ", i + 1, " already sets engine.runtimes.", name,
                         " outside vigil's block; remove it or keep editing by hand"));
    }
    if (table == "engine" && key == "runtime_supports_json") {
      if (lines[i].find(StrCat("\"", name, "\"")) == std::string::npos) {
        return Fail(StrCat("line ", i + 1, " sets engine.runtime_supports_json: add \"", name,
                           "\" to it, then install again"));
      }
      json_listed = true;
    }
  }
  ASSIGN_OR_RETURN(std::string binary, TomlString(add->path));
  std::string runtime_line = StrCat(name, " = [", binary, "]");
  std::vector<std::string> engine_lines;
  if (!json_listed) {
    engine_lines.push_back(StrCat("runtime_supports_json = [", kJsonRuntimes, ", \"", name, "\"]"));
  }
  if (!engine_runtimes) engine_lines.push_back(StrCat("runtimes.", runtime_line));

  auto insert_after = [&](std::size_t header, std::vector<std::string> body) {
    body.insert(body.begin(), BeginMarker(name));
    body.push_back(EndMarker(name));
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(header) + 1, body.begin(), body.end());
  };
  // The later header first, so the earlier one's index stays right.
  bool runtimes_first = engine_runtimes && (!engine || *engine_runtimes > *engine);
  if (runtimes_first) insert_after(*engine_runtimes, {runtime_line});
  if (engine && !engine_lines.empty()) insert_after(*engine, engine_lines);
  if (engine_runtimes && !runtimes_first) insert_after(*engine_runtimes, {runtime_line});
  if (!engine) {
    engine_lines.insert(engine_lines.begin(), "[engine]");
    engine_lines.insert(engine_lines.begin(), BeginMarker(name));
    engine_lines.push_back(EndMarker(name));
    AppendBlock(lines, std::move(engine_lines));
  }
  Edit edit;
  edit.text = JoinLines(lines);
  edit.changed = edit.text != text;
  return edit;
}

}  // namespace vigil::cli::install
