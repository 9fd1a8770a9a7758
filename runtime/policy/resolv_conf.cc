#include "runtime/policy/resolv_conf.h"

#include <algorithm>
#include <utility>

#include "base/strings.h"

namespace vigil::runtime {
namespace {

// The first word of `line` and what follows it, blanks trimmed.
std::pair<std::string_view, std::string_view> Keyword(std::string_view line) {
  constexpr std::string_view kBlanks = " \t\r";
  const std::size_t start = line.find_first_not_of(kBlanks);
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  const std::size_t end = line.find_first_of(kBlanks);
  if (end == std::string_view::npos) return {line, {}};
  std::string_view rest = line.substr(end);
  rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(kBlanks)));
  rest.remove_suffix(rest.size() - (rest.find_last_not_of(kBlanks) + 1));
  return {line.substr(0, end), rest};
}

}  // namespace

SandboxResolvConf MakeSandboxResolvConf(std::string_view original, std::string_view resolver) {
  SandboxResolvConf made;
  made.workload = StrCat("# Names are answered by vigil's resolver for this sandbox.\n",
                         "nameserver ", resolver, "\n");
  while (!original.empty()) {
    const std::size_t end = original.find('\n');
    const std::string_view line = original.substr(0, end);
    original.remove_prefix(end == std::string_view::npos ? original.size() : end + 1);
    const auto [keyword, value] = Keyword(line);
    if (keyword == "nameserver") {
      if (value != resolver) made.upstream += StrCat("nameserver ", value, "\n");
    } else if (keyword == "search" || keyword == "domain") {
      made.workload += StrCat(keyword, " ", value, "\n");
    } else if (keyword == "options") {
      made.workload += StrCat("options ", value, "\n");
      made.upstream += StrCat("options ", value, "\n");
    }
  }
  return made;
}

}  // namespace vigil::runtime
