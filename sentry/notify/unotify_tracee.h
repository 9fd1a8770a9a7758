// A notified thread's memory through /proc/TID/mem. The descriptor is
// opened first and the notification checked valid after: the open then
// refers to the task that made the syscall, and the mm it pins cannot be
// another process's even if the tid is reused later (DESIGN.md §2 rule 3).
#pragma once

#include <string>
#include <string_view>

#include "base/unique_fd.h"
#include "sentry/core/tracee.h"

namespace vigil::sentry {

class UnotifyTracee final : public Tracee {
 public:
  // Fails with ENOENT if the notification is no longer valid.
  static Result<UnotifyTracee> Open(int listener, std::uint64_t id, pid_t tid);

  Result<void> Read(std::uint64_t address, std::span<std::byte> out) override;
  Result<void> Write(std::uint64_t address, std::span<const std::byte> data) override;
  bool Valid() override;
  Result<unsigned int> Personality() override;
  Result<UniqueFd> Descriptor(int fd) override;
  Result<UniqueFd> Root() override;
  Result<UniqueFd> WorkingDirectory() override;
  Result<std::string> WorkingDirectoryPath() override;
  Result<std::string> DescriptorPath(int fd) override;
  Result<ThreadStatus> Status() override;

 private:
  Result<UniqueFd> OpenAnchored(std::string_view link);
  Result<std::string> ReadAnchored(std::string_view link);

  UnotifyTracee(int listener, std::uint64_t id, pid_t tid, UniqueFd memory)
      : listener_(listener), id_(id), tid_(tid), memory_(std::move(memory)) {}

  int listener_;
  std::uint64_t id_;
  pid_t tid_;
  UniqueFd memory_;
  UniqueFd pidfd_;  // opened on first use
};

}  // namespace vigil::sentry
