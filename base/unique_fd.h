// UniqueFd: sole owner of a file descriptor; closes it on destruction.
#pragma once

#include <memory>
#include <utility>

namespace vigil {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(other.Release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  // The descriptor, still owned by this object; -1 when empty.
  [[nodiscard]] int Get() const { return fd_; }
  [[nodiscard]] bool Valid() const { return fd_ >= 0; }
  explicit operator bool() const { return Valid(); }

  // Gives up ownership without closing.
  [[nodiscard]] int Release() { return std::exchange(fd_, -1); }

  // Closes the current descriptor (if any) and owns `fd` instead.
  void Reset(int fd = -1);

 private:
  int fd_ = -1;
};

// A descriptor with several owners, closed when the last lets go: for one
// kept in a cache that a user may outlive (a handler in a fiber wait while
// the cache drops it), handed out without a dup and a close per use.
class SharedFd {
 public:
  SharedFd() = default;
  explicit SharedFd(UniqueFd fd) : fd_(std::make_shared<const UniqueFd>(std::move(fd))) {}

  // The descriptor, open as long as this object is; -1 when empty.
  [[nodiscard]] int Get() const { return fd_ ? fd_->Get() : -1; }
  explicit operator bool() const { return Get() >= 0; }

 private:
  std::shared_ptr<const UniqueFd> fd_;
};

}  // namespace vigil
