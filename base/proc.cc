#include "base/proc.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "base/file.h"
#include "base/strings.h"

namespace vigil {
namespace {

struct StatFields {
  char state = '?';
  std::uint64_t start_time = 0;
};

Result<StatFields> ReadStat(pid_t pid) {
  ASSIGN_OR_RETURN(std::string stat, ReadFile(StrCat("/proc/", pid, "/stat"), 4096));
  // The command name (field 2) may hold spaces and parentheses: the fields
  // after it start behind the last ')'.
  std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) {
    return Fail(StrCat("/proc/", pid, "/stat: unexpected format"));
  }
  StatFields fields;
  fields.state = stat[paren + 2];
  // Field 3 is the state; the start time is field 22, i.e. 19 fields later.
  std::size_t pos = paren + 2;
  for (int field = 3; field < 22; ++field) {
    pos = stat.find(' ', pos);
    if (pos == std::string::npos) return Fail(StrCat("/proc/", pid, "/stat: too few fields"));
    ++pos;
  }
  std::from_chars(stat.data() + pos, stat.data() + stat.size(), fields.start_time);
  return fields;
}

}  // namespace

Result<std::uint64_t> ProcessStartTime(pid_t pid) {
  ASSIGN_OR_RETURN(StatFields fields, ReadStat(pid));
  return fields.start_time;
}

bool ProcessAlive(pid_t pid, std::uint64_t start_time) {
  if (pid <= 0) return false;
  Result<StatFields> fields = ReadStat(pid);
  return fields && fields->start_time == start_time && fields->state != 'Z' && fields->state != 'X';
}

std::uint64_t KibFieldBytes(std::string_view text, std::string_view key) {
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (at != 0 && text[at - 1] != '\n') continue;  // a key's tail inside another line
    std::string_view rest = text.substr(at + key.size());
    rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
    std::uint64_t kib = 0;
    std::from_chars(rest.data(), rest.data() + rest.size(), kib);
    return kib * 1024;
  }
  return 0;
}

}  // namespace vigil
