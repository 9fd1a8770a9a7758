#include "sentry/serve/exec_approvals.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>

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
  if (mapped && approved.image == mapped) return true;
  Result<std::string> path = ReadLink(StrCat("/proc/", pid, "/exe"));
  // Not a single instruction of it has run.
  ::kill(pid, SIGKILL);
  log::Warning(StrCat("sentry: killed process ", pid, ": its exec mapped ",
                      path ? *path : std::string("an unknown file"),
                      ", not the file the policy approved"));
  if (on_killed_) on_killed_(approved, pid, path ? *path : std::string());
  return false;
}

}  // namespace vigil::sentry
