// A thread whose syscall the sentry serves, as the handlers see it, from
// what the sentry keeps about it (KnownThread: its memory, credentials and
// root, opened once and checked against a syscall) plus what is read per
// call (its working directory and descriptors, which change without a
// syscall the sentry sees). Everything read from /proc/TID is trusted only
// once the syscall is found still waiting after the read (docs/design.md
// rule 3). Either backend serves its threads through it: what "still
// waiting" means is the backend's.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/unique_fd.h"
#include "sentry/core/tracee.h"
#include "sentry/serve/known_threads.h"

namespace vigil::sentry {

class ThreadTracee final : public Tracee {
 public:
  // `personality_may_differ`: false when no process of the container can
  // have left PER_LINUX, so there is nothing to read.
  ThreadTracee(const StillWaiting& still_waiting, std::shared_ptr<KnownThread> thread,
               bool personality_may_differ)
      : still_waiting_(still_waiting),
        thread_(std::move(thread)),
        personality_may_differ_(personality_may_differ) {}

  Result<void> Read(std::uint64_t address, std::span<std::byte> out) override;
  Result<void> Write(std::uint64_t address, std::span<const std::byte> data) override;
  bool Valid() override;
  Result<unsigned int> Personality() override;
  Result<UniqueFd> Descriptor(int fd) override;
  Result<SharedFd> Root() override;
  Result<UniqueFd> WorkingDirectory() override;
  Result<UniqueFd> Executable() override;
  Result<UniqueFd> Namespace(std::string_view type) override;
  Result<std::string> RootPath() override;
  Result<bool> Chrooted() override;
  Result<std::string> WorkingDirectoryPath() override;
  Result<std::string> DescriptorPath(int fd) override;
  Result<ThreadStatus> Status() override;

 private:
  // pread or pwrite of the thread's memory; an mm that died since it was
  // opened (the thread exec'd) is reopened once.
  template <typename Transfer>
  Result<void> Access(Transfer transfer, std::size_t size, const char* what);
  // /proc/TID/`link` opened O_PATH (and O_DIRECTORY unless `file`).
  Result<UniqueFd> OpenAnchored(std::string_view link, bool file = false);
  Result<std::string> ReadAnchored(std::string_view link);
  // Where Root() is, as a path in the container: "/" unless it chrooted.
  Result<std::string> ThreadRootPath();
  // A path in the container as the thread names it, from its root.
  Result<std::string> FromThreadRoot(std::string path);

  const StillWaiting& still_waiting_;
  std::shared_ptr<KnownThread> thread_;
  bool personality_may_differ_;
};

}  // namespace vigil::sentry
