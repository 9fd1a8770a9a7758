#include "sentry/core/thread_status.h"

#include <signal.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

#include "base/file.h"
#include "base/strings.h"

namespace vigil::sentry {
namespace {

// The value of "Key:\t..." in `text`, empty if absent.
std::string_view Field(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ':') {
      return line.substr(key.size() + 1);
    }
    at = end + 1;
  }
  return {};
}

// The numbers in `value` (whitespace separated), in `base`.
template <typename T>
std::vector<T> Numbers(std::string_view value, int base = 10) {
  std::vector<T> out;
  const char* p = value.data();
  const char* end = value.data() + value.size();
  while (p < end) {
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    if (p == end) break;
    T number{};
    auto [next, ec] = std::from_chars(p, end, number, base);
    if (ec != std::errc()) break;
    out.push_back(number);
    p = next;
  }
  return out;
}

}  // namespace

Result<ThreadStatus> ParseThreadStatus(std::string_view text) {
  ThreadStatus status;
  std::vector<std::uint32_t> uids = Numbers<std::uint32_t>(Field(text, "Uid"));
  std::vector<std::uint32_t> gids = Numbers<std::uint32_t>(Field(text, "Gid"));
  std::vector<std::uint64_t> caps = Numbers<std::uint64_t>(Field(text, "CapEff"), 16);
  std::vector<std::uint64_t> permitted = Numbers<std::uint64_t>(Field(text, "CapPrm"), 16);
  std::vector<std::uint32_t> umask = Numbers<std::uint32_t>(Field(text, "Umask"), 8);
  std::vector<pid_t> tgid = Numbers<pid_t>(Field(text, "Tgid"));
  std::vector<pid_t> tgids = Numbers<pid_t>(Field(text, "NStgid"));
  std::vector<pid_t> tids = Numbers<pid_t>(Field(text, "NSpid"));
  if (uids.size() != 4 || gids.size() != 4 || caps.size() != 1 || tgid.size() != 1 ||
      tgids.empty() || tids.empty()) {
    return Fail("unexpected /proc/TID/status");
  }
  status.ruid = uids[0];
  status.rgid = gids[0];
  status.euid = uids[1];
  status.egid = gids[1];
  status.suid = uids[2];
  status.sgid = gids[2];
  status.fsuid = uids[3];
  status.fsgid = gids[3];
  for (std::uint32_t gid : Numbers<std::uint32_t>(Field(text, "Groups")))
    status.groups.push_back(gid);
  status.cap_effective = caps[0];
  if (!permitted.empty()) status.cap_permitted = permitted[0];
  if (!umask.empty()) status.umask = static_cast<mode_t>(umask[0]);
  status.tgid = tgid[0];
  status.ns_tgid = tgids.back();
  status.ns_tid = tids.back();
  return status;
}

std::uint64_t SoftFileSizeLimit(std::string_view text) {
  constexpr std::string_view kName = "Max file size";
  const std::size_t at = text.find(kName);
  if (at == std::string_view::npos) return UINT64_MAX;
  std::string_view rest = text.substr(at + kName.size());
  rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
  std::uint64_t limit = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), limit);
  return ec == std::errc() ? limit : UINT64_MAX;  // "unlimited"
}

std::uint64_t FileSizeLimitOf(pid_t tid) {
  Result<std::string> text = ReadFile(StrCat("/proc/", tid, "/limits"), 8192);
  return text ? SoftFileSizeLimit(*text) : UINT64_MAX;
}

bool SignalDeliverable(std::string_view text) {
  auto mask = [&](std::string_view key) {
    std::vector<std::uint64_t> value = Numbers<std::uint64_t>(Field(text, key), 16);
    return value.empty() ? 0 : value.front();
  };
  // Signals whose default action is to be ignored (SIGCHLD, SIGCONT,
  // SIGURG, SIGWINCH) end nothing unless caught: a traced thread (the
  // ptrace platform) keeps them pending where the kernel discards them.
  constexpr auto bit = [](int signal) { return std::uint64_t{1} << (signal - 1); };
  constexpr std::uint64_t kIgnoredByDefault =
      bit(SIGCHLD) | bit(SIGCONT) | bit(SIGURG) | bit(SIGWINCH);
  const std::uint64_t pending = mask("SigPnd") | mask("ShdPnd");
  const std::uint64_t ignored = mask("SigIgn") | (kIgnoredByDefault & ~mask("SigCgt"));
  return (pending & ~mask("SigBlk") & ~ignored) != 0;
}

bool SignalDeliverableTo(pid_t tid) {
  Result<std::string> text = ReadFile(StrCat("/proc/", tid, "/status"), 8192);
  return text && SignalDeliverable(*text);
}

}  // namespace vigil::sentry
