#include "cli/install_toml.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"

namespace vigil::cli::install {

std::string BeginMarker(std::string_view name) {
  return StrCat("# BEGIN vigil-install ", name,
                " (written by `vigil install`; `vigil uninstall` removes it)");
}
std::string EndMarker(std::string_view name) { return StrCat("# END vigil-install ", name); }

bool IsMarker(std::string_view line, std::string_view prefix, std::string_view name) {
  std::string head = StrCat(prefix, name);
  return line.starts_with(head) && (line.size() == head.size() || line[head.size()] == ' ');
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    lines.emplace_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += StrCat(line, "\n");
  return out;
}

std::optional<std::string> TableName(std::string_view line) {
  line = Trim(line);
  if (!line.starts_with('[') || line.starts_with("[[")) return std::nullopt;
  std::string name;
  char quote = 0;
  for (std::size_t i = 1; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        name += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ']') {
      return name;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      name += c;
    }
  }
  return std::nullopt;
}

std::string KeyOf(std::string_view line) {
  line = Trim(line);
  if (line.empty() || line.front() == '#' || line.front() == '[') return "";
  std::size_t eq = line.find('=');
  if (eq == std::string_view::npos) return "";
  std::string key;
  for (char c : Trim(line.substr(0, eq))) {
    if (c != '"' && c != '\'' && !std::isspace(static_cast<unsigned char>(c))) key += c;
  }
  return key;
}

Result<std::string> TomlString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t')
      return Fail(StrCat("cannot write ", Quote(s), " in TOML"));
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

Result<bool> StripBlocks(std::vector<std::string>& lines, std::string_view name) {
  bool found = false;
  std::size_t i = 0;
  while (i < lines.size()) {
    if (!IsMarker(lines[i], "# BEGIN vigil-install ", name)) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < lines.size() && !IsMarker(lines[end], "# END vigil-install ", name)) ++end;
    if (end == lines.size()) {
      return Fail(StrCat("line ", i + 1, ": the block vigil install began has no \"",
                         EndMarker(name), "\" line; fix the file by hand"));
    }
    bool at_end = std::all_of(lines.begin() + static_cast<std::ptrdiff_t>(end) + 1, lines.end(),
                              [](const std::string& l) { return Trim(l).empty(); });
    std::size_t begin = (at_end && i > 0 && Trim(lines[i - 1]).empty()) ? i - 1 : i;
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                lines.begin() + static_cast<std::ptrdiff_t>(end) + 1);
    found = true;
    i = begin;
  }
  return found;
}

void AppendBlock(std::vector<std::string>& lines, std::vector<std::string> block) {
  while (!lines.empty() && Trim(lines.back()).empty()) lines.pop_back();
  if (!lines.empty()) lines.emplace_back();
  lines.insert(lines.end(), block.begin(), block.end());
}

}  // namespace vigil::cli::install
