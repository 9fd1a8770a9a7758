#include "sentry/serve/exec_approvals.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include <cstdio>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil::sentry {
namespace {

std::optional<FileId> MappedImage(pid_t pid) {
  UniqueFd exe(::open(StrCat("/proc/", pid, "/exe").c_str(), O_PATH | O_CLOEXEC));
  struct stat st {};
  if (!exe || ::fstat(exe.Get(), &st) != 0) return std::nullopt;
  return FileId{.dev = st.st_dev, .ino = st.st_ino};
}

// The first file-backed mapping of `pid` that is neither `image` nor
// `interpreter`, as /proc/PID/maps names it ("MAJOR:MINOR INODE PATH");
// empty when there is none. nullopt when the maps cannot be read.
std::optional<std::string> UnapprovedMapping(pid_t pid, const FileId& image,
                                             const std::optional<FileId>& interpreter) {
  // A fresh image maps a few dozen lines at most; a limit keeps a
  // surprise from costing the loop.
  constexpr std::size_t kMaxMaps = 1 << 20;
  Result<std::string> maps = ReadFile(StrCat("/proc/", pid, "/maps"), kMaxMaps);
  if (!maps) return std::nullopt;
  std::size_t start = 0;
  while (start < maps->size()) {
    std::size_t end = maps->find('\n', start);
    if (end == std::string::npos) end = maps->size();
    const std::string text = maps->substr(start, end - start);
    start = end + 1;
    unsigned major_no = 0, minor_no = 0;
    unsigned long long inode = 0;
    int path_at = 0;
    if (std::sscanf(text.c_str(), "%*s %*s %*s %x:%x %llu %n", &major_no, &minor_no, &inode,
                    &path_at) < 3) {
      return std::nullopt;  // not the format the kernel writes
    }
    if (inode == 0) continue;  // anonymous, the stack, the vDSO
    const FileId mapped{.dev = makedev(major_no, minor_no), .ino = static_cast<ino_t>(inode)};
    if (mapped == image || (interpreter && mapped == *interpreter)) continue;
    return text.substr(static_cast<std::size_t>(path_at));
  }
  return std::string();
}

}  // namespace

bool ExecApprovals::Verify(pid_t pid, pid_t execed) {
  // When another thread than the leader exec'd, the leader is gone: an
  // approval it left (its own exec failed) is not this one's.
  Approved approved{.event = {.tid = pid, .number = SYS_execve}};
  if (auto found = approved_.find(execed); found != approved_.end()) {
    approved = std::move(found->second);
  }
  approved_.erase(execed);
  approved_.erase(pid);
  const std::optional<FileId> mapped = MappedImage(pid);
  std::optional<std::string> other;
  if (mapped && approved.image == mapped) {
    other = UnapprovedMapping(pid, *mapped, approved.interpreter);
    if (other && other->empty()) return true;
  } else {
    Result<std::string> exe = ReadLink(StrCat("/proc/", pid, "/exe"));
    if (exe) other = *exe;
  }
  // Not a single instruction of it has run.
  ::kill(pid, SIGKILL);
  const std::string what = other ? *other : std::string("an unknown file");
  log::Warning(StrCat("sentry: killed process ", pid, ": its exec mapped ", what,
                      ", not the files the policy approved"));
  if (on_killed_) on_killed_(approved, pid, other ? *other : std::string());
  return false;
}

}  // namespace vigil::sentry
