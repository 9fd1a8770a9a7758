#include "sentry/serve/thread_tracee.h"

#include <fcntl.h>
#include <sys/personality.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "base/file.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "sentry/core/acting_as.h"

namespace vigil::sentry {

// A partial copy counts as a fault: the syscall would have faulted too.
// /proc/TID/mem answers 0 bytes (not EIO) only when its mm has no users
// left: the thread exec'd after the descriptor was opened.
template <typename Transfer>
Result<void> ThreadTracee::Access(Transfer transfer, std::size_t size, const char* what) {
  ssize_t n = transfer(thread_->memory.Get());
  if (n == 0 && size != 0) {
    RETURN_IF_ERROR(thread_->ReopenMemory(still_waiting_));
    n = transfer(thread_->memory.Get());
  }
  if (n != static_cast<ssize_t>(size)) return FailErrno(EFAULT, what);
  return {};
}

Result<void> ThreadTracee::Read(std::uint64_t address, std::span<std::byte> out) {
  return Access(
      [&](int memory) {
        return ::pread(memory, out.data(), out.size(), static_cast<off_t>(address));
      },
      out.size(), "read workload memory");
}

Result<void> ThreadTracee::Write(std::uint64_t address, std::span<const std::byte> data) {
  return Access(
      [&](int memory) {
        return ::pwrite(memory, data.data(), data.size(), static_cast<off_t>(address));
      },
      data.size(), "write workload memory");
}

bool ThreadTracee::Valid() { return still_waiting_(); }

// /proc/TID/personality: eight hex digits. A reused tid would answer for
// another task, which the caller's Valid() check before acting catches.
Result<unsigned int> ThreadTracee::Personality() {
  if (!personality_may_differ_) return PER_LINUX;
  ASSIGN_OR_RETURN(std::string text, ActingAs::AsHeldThenAsSentry([&] {
                     return ReadFile(StrCat("/proc/", thread_->tid, "/personality"), 64);
                   }));
  unsigned int persona = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), persona, 16);
  if (ec != std::errc()) return Fail(StrCat("parse the personality of thread ", thread_->tid));
  return persona;
}

// The thread's own pidfd, checked against a syscall when it was opened.
// This and the reads of /proc/TID below are ptrace access checks, made as
// ActingAs::AsHeldThenAsSentry says.
Result<UniqueFd> ThreadTracee::Descriptor(int fd) {
  return ActingAs::AsHeldThenAsSentry([&] { return PidfdGetfd(thread_->pidfd.Get(), fd); });
}

// /proc/TID/root and cwd are links to the thread's own directories; the
// open is checked against the syscall like the memory's. The root is
// kept (only chroot changes it, and that is observed); the working
// directory changes with every chdir and is opened each time.
Result<SharedFd> ThreadTracee::Root() {
  if (!thread_->root) {
    ASSIGN_OR_RETURN(UniqueFd root, OpenAnchored("root"));
    thread_->root = SharedFd(std::move(root));
  }
  return thread_->root;
}

Result<UniqueFd> ThreadTracee::WorkingDirectory() { return OpenAnchored("cwd"); }

Result<UniqueFd> ThreadTracee::Executable() { return OpenAnchored("exe", /*file=*/true); }

Result<UniqueFd> ThreadTracee::Namespace(std::string_view type) {
  return OpenAnchored(StrCat("ns/", type), /*file=*/true);
}

// Every container has a mount namespace of its own (vigil requires one)
// whose root is the container's, and the sentry is outside it: the kernel
// names a file of the container, in a link the sentry reads, from that
// root. So a container path is absolute from "/", whatever root the
// thread chrooted to (deciding on paths from the thread's own root let a
// chroot into /etc make /etc/secret "/secret", which no rule named).
Result<std::string> ThreadTracee::RootPath() { return std::string("/"); }

// Read once with the root it names (the sentry's own /proc/self/fd link).
Result<std::string> ThreadTracee::ThreadRootPath() {
  if (thread_->root_path.empty()) {
    ASSIGN_OR_RETURN(SharedFd root, Root());
    ASSIGN_OR_RETURN(thread_->root_path, ReadLink(StrCat("/proc/self/fd/", root.Get())));
  }
  return thread_->root_path;
}

Result<bool> ThreadTracee::Chrooted() {
  Result<std::string> root = ThreadRootPath();
  if (!root) return tl::unexpected(root.error());
  return *root != "/";
}

// A chrooted thread's walks start from its root, so its directories are
// named from there. One outside its root (a working directory kept
// across the chroot, a descriptor opened before it) cannot be: a walk from
// the root would not reach it, and the sentry has no other base.
Result<std::string> ThreadTracee::FromThreadRoot(std::string path) {
  if (!path.starts_with('/')) return path;  // "pipe:[4242]" and the like
  Result<std::string> root = ThreadRootPath();
  if (!root) return root;
  if (*root == "/") return path;
  if (path == *root) return std::string("/");
  if (path.starts_with(*root + "/")) return path.substr(root->size());
  return FailErrno(EACCES, "a directory outside the root the thread chrooted to");
}

Result<UniqueFd> ThreadTracee::OpenAnchored(std::string_view link, bool file) {
  const std::string path = StrCat("/proc/", thread_->tid, "/", link);
  ASSIGN_OR_RETURN(
      UniqueFd fd, ActingAs::AsHeldThenAsSentry([&]() -> Result<UniqueFd> {
        UniqueFd opened(::open(path.c_str(), O_PATH | (file ? 0 : O_DIRECTORY) | O_CLOEXEC));
        if (!opened) return FailErrno(StrCat("open ", path));
        return opened;
      }));
  if (!Valid()) return FailErrno(ENOENT, "the syscall no longer waits");
  return fd;
}

// Links of /proc/TID read the same way: the answer is trusted only if the
// syscall still waits after it, so it was this thread's.
Result<std::string> ThreadTracee::ReadAnchored(std::string_view link) {
  Result<std::string> target = ActingAs::AsHeldThenAsSentry(
      [&] { return ReadLink(StrCat("/proc/", thread_->tid, "/", link)); });
  if (!target) {
    const int code = target.error().code;
    return FailErrno(code == ENOENT ? EBADF : code, StrCat("readlink ", link));
  }
  if (!Valid()) return FailErrno(ENOENT, "the syscall no longer waits");
  return target;
}

Result<std::string> ThreadTracee::WorkingDirectoryPath() {
  ASSIGN_OR_RETURN(std::string path, ReadAnchored("cwd"));
  return FromThreadRoot(std::move(path));
}

Result<std::string> ThreadTracee::DescriptorPath(int fd) {
  if (fd < 0) return FailErrno(EBADF, "descriptor");
  ASSIGN_OR_RETURN(std::string path, ReadAnchored(StrCat("fd/", fd)));
  return FromThreadRoot(std::move(path));
}

// Kept until the thread's credentials change (KnownThreads::Observe).
Result<ThreadStatus> ThreadTracee::Status() {
  if (thread_->status) return *thread_->status;
  ASSIGN_OR_RETURN(std::string text, ActingAs::AsHeldThenAsSentry([&] {
                     return ReadFile(StrCat("/proc/", thread_->tid, "/status"), 16384);
                   }));
  if (!Valid()) return FailErrno(ENOENT, "the syscall no longer waits");
  ASSIGN_OR_RETURN(ThreadStatus status, ParseThreadStatus(text));
  thread_->status = status;
  return status;
}

}  // namespace vigil::sentry
