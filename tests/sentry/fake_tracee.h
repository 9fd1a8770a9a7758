// A workload thread simulated in memory, for handler tests: one mapped
// region, and a switch that makes the notification go stale.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <cstring>
#include <vector>

#include "sentry/core/tracee.h"

namespace vigil::sentry {

class FakeTracee final : public Tracee {
 public:
  static constexpr std::uint64_t kBase = 0x10000;

  explicit FakeTracee(std::size_t size = 4096) : memory_(size) {}

  Result<void> Read(std::uint64_t address, std::span<std::byte> out) override {
    if (!Mapped(address, out.size())) return FailErrno(EFAULT, "fake read");
    std::memcpy(out.data(), memory_.data() + (address - kBase), out.size());
    return {};
  }
  Result<void> Write(std::uint64_t address, std::span<const std::byte> data) override {
    if (!Mapped(address, data.size())) return FailErrno(EFAULT, "fake write");
    std::memcpy(memory_.data() + (address - kBase), data.data(), data.size());
    ++writes;
    return {};
  }
  bool Valid() override { return valid; }
  Result<unsigned int> Personality() override { return persona; }
  // Descriptors are the test process's own: the fake workload shares them.
  Result<UniqueFd> Descriptor(int fd) override {
    int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup < 0) return FailErrno("fake descriptor");
    return UniqueFd(dup);
  }
  Result<SharedFd> Root() override {
    ASSIGN_OR_RETURN(UniqueFd dir, OpenDir(root));
    return SharedFd(std::move(dir));
  }
  Result<UniqueFd> WorkingDirectory() override { return OpenDir(root + cwd); }
  // `exe` is a path in the fake container.
  Result<UniqueFd> Executable() override {
    UniqueFd fd(::open((root + exe).c_str(), O_PATH | O_CLOEXEC));
    if (!fd) return FailErrno("fake executable");
    return fd;
  }
  Result<std::string> RootPath() override { return root; }
  Result<bool> Chrooted() override { return false; }
  // `cwd` is a path in the fake container (under `root`).
  Result<std::string> WorkingDirectoryPath() override { return cwd; }
  Result<std::string> DescriptorPath(int fd) override {
    std::error_code ec;
    std::string path = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
    if (ec) return FailErrno(EBADF, "fake descriptor path");
    return path.starts_with(root) && root != "/" ? path.substr(root.size()) : path;
  }
  // This process's own credentials and pid; the namespace ids as set.
  Result<ThreadStatus> Status() override {
    return ThreadStatus{.ruid = ruid, .rgid = rgid, .euid = euid, .egid = egid,
                        .suid = euid, .sgid = egid, .fsuid = fsuid, .fsgid = fsgid,
                        .cap_effective = capabilities, .cap_permitted = capabilities,
                        .umask = 022, .tgid = ::getpid(), .ns_tgid = ns_tgid, .ns_tid = ns_tid};
  }

  template <typename T>
  T ObjectAt(std::uint64_t address) const {
    T value;
    std::memcpy(&value, memory_.data() + (address - kBase), sizeof value);
    return value;
  }

  bool valid = true;
  std::string root = "/";
  std::string cwd = "/";
  std::string exe = "/bin/sh";
  pid_t ns_tgid = 1;
  pid_t ns_tid = 1;
  // The credentials the fake workload runs with.
  uid_t ruid = ::getuid();
  gid_t rgid = ::getgid();
  uid_t euid = ::geteuid();
  gid_t egid = ::getegid();
  uid_t fsuid = ::geteuid();
  gid_t fsgid = ::getegid();
  std::uint64_t capabilities = ~std::uint64_t{0};
  unsigned int persona = 0;
  int writes = 0;

 private:
  static Result<UniqueFd> OpenDir(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd) return FailErrno("fake directory");
    return fd;
  }
  bool Mapped(std::uint64_t address, std::size_t size) const {
    return address >= kBase && address - kBase + size <= memory_.size();
  }
  std::vector<std::byte> memory_;
};

}  // namespace vigil::sentry
