#include "sentry/notify/unotify_tracee.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <filesystem>

#include "base/file.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "sentry/notify/unotify.h"

namespace vigil::sentry {
namespace {

// pidfd_open(2)'s PIDFD_THREAD (O_EXCL): a pidfd for one thread.
constexpr unsigned int kPidfdThread = O_EXCL;

}  // namespace

Result<UnotifyTracee> UnotifyTracee::Open(int listener, std::uint64_t id, pid_t tid) {
  UniqueFd memory(::open(StrCat("/proc/", tid, "/mem").c_str(), O_RDWR | O_CLOEXEC));
  if (!memory) return FailErrno(StrCat("open the memory of thread ", tid));
  if (!unotify::IdValid(listener, id)) return FailErrno(ENOENT, "the syscall no longer waits");
  return UnotifyTracee(listener, id, tid, std::move(memory));
}

// A partial copy counts as a fault: the syscall would have faulted too.
Result<void> UnotifyTracee::Read(std::uint64_t address, std::span<std::byte> out) {
  ssize_t n = ::pread(memory_.Get(), out.data(), out.size(), static_cast<off_t>(address));
  if (n != static_cast<ssize_t>(out.size())) return FailErrno(EFAULT, "read workload memory");
  return {};
}

Result<void> UnotifyTracee::Write(std::uint64_t address, std::span<const std::byte> data) {
  ssize_t n = ::pwrite(memory_.Get(), data.data(), data.size(), static_cast<off_t>(address));
  if (n != static_cast<ssize_t>(data.size())) return FailErrno(EFAULT, "write workload memory");
  return {};
}

bool UnotifyTracee::Valid() { return unotify::IdValid(listener_, id_); }

// /proc/TID/personality: eight hex digits. A reused tid would answer for
// another task, which the caller's Valid() check before acting catches.
Result<unsigned int> UnotifyTracee::Personality() {
  ASSIGN_OR_RETURN(std::string text, ReadFile(StrCat("/proc/", tid_, "/personality"), 64));
  unsigned int persona = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), persona, 16);
  if (ec != std::errc()) return Fail(StrCat("parse the personality of thread ", tid_));
  return persona;
}

// A pidfd for the thread itself (PIDFD_THREAD, Linux 6.9), checked against
// the notification after it is open: then it is this thread's, not a
// reused tid's.
Result<UniqueFd> UnotifyTracee::Descriptor(int fd) {
  if (!pidfd_) {
    long pidfd = ::syscall(SYS_pidfd_open, tid_, kPidfdThread);
    if (pidfd < 0) return FailErrno(StrCat("pidfd_open thread ", tid_));
    pidfd_.Reset(static_cast<int>(pidfd));
    if (!Valid()) return FailErrno(ENOENT, "the syscall no longer waits");
  }
  return PidfdGetfd(pidfd_.Get(), fd);
}

// /proc/TID/root and cwd are links to the thread's own directories; the
// open is checked against the notification like the memory's.
Result<UniqueFd> UnotifyTracee::Root() { return OpenAnchored("root"); }
Result<UniqueFd> UnotifyTracee::WorkingDirectory() { return OpenAnchored("cwd"); }

Result<UniqueFd> UnotifyTracee::OpenAnchored(std::string_view link) {
  UniqueFd fd(::open(StrCat("/proc/", tid_, "/", link).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return FailErrno(StrCat("open /proc/", tid_, "/", link));
  if (!Valid()) return FailErrno(ENOENT, "the syscall no longer waits");
  return fd;
}

// Links of /proc/TID read the same way: the answer is trusted only if the
// notification is still valid after it, so it was this thread's.
Result<std::string> UnotifyTracee::ReadAnchored(std::string_view link) {
  std::error_code ec;
  std::string target =
      std::filesystem::read_symlink(StrCat("/proc/", tid_, "/", link), ec).string();
  if (ec) return FailErrno(ec.value() == ENOENT ? EBADF : ec.value(), StrCat("readlink ", link));
  if (!Valid()) return FailErrno(ENOENT, "the syscall no longer waits");
  return target;
}

Result<std::string> UnotifyTracee::WorkingDirectoryPath() { return ReadAnchored("cwd"); }

Result<std::string> UnotifyTracee::DescriptorPath(int fd) {
  if (fd < 0) return FailErrno(EBADF, "descriptor");
  return ReadAnchored(StrCat("fd/", fd));
}

Result<ThreadStatus> UnotifyTracee::Status() {
  ASSIGN_OR_RETURN(std::string text, ReadFile(StrCat("/proc/", tid_, "/status"), 16384));
  if (!Valid()) return FailErrno(ENOENT, "the syscall no longer waits");
  return ParseThreadStatus(text);
}

}  // namespace vigil::sentry
