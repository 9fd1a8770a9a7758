// A workload thread simulated in memory, the one fake of sentry/core/
// tracee.h for handler tests and fuzz targets alike: one region mapped at
// kBase, and a switch that makes the notification go stale.
//
// Two ways to make one:
// - FakeTracee(size): `size` zeroed bytes. Descriptors are the test
//   process's own, the container's root is `root` on the host, and the
//   credentials are the test's: handlers act on real files.
// - FakeTracee::Sealed(input, fill): the fuzzer's input, the rest of its
//   last page filled with `fill` (pages are whole, as in a real address
//   space, so a read fails exactly where the kernel's would). Nothing
//   outside that memory is reachable: descriptors 0-15 are /dev/null, no
//   root, working directory or executable can be opened.
// Either way the memory answers as /proc/TID/mem does: nothing to copy
// succeeds at any address, any byte outside the region is EFAULT.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sentry/core/tracee.h"

namespace vigil::sentry {

class FakeTracee final : public Tracee {
 public:
  static constexpr std::uint64_t kBase = 0x10000;
  static constexpr std::uint64_t kPage = 4096;
  static constexpr int kSealedDescriptors = 16;

  explicit FakeTracee(std::size_t size = 4096) : memory_(size) {}

  static FakeTracee Sealed(std::span<const std::uint8_t> input, std::uint8_t fill) {
    const std::size_t pages = std::max<std::size_t>(1, (input.size() + kPage - 1) / kPage);
    FakeTracee tracee(pages * kPage);
    std::fill(tracee.memory_.begin(), tracee.memory_.end(), std::byte{fill});
    if (!input.empty()) std::memcpy(tracee.memory_.data(), input.data(), input.size());
    tracee.sealed_ = true;
    return tracee;
  }

  // Just past the last mapped byte.
  std::uint64_t End() const { return kBase + memory_.size(); }
  // Whether all of [address, address + size) is mapped; no wrap-around.
  bool Mapped(std::uint64_t address, std::size_t size) const {
    return address >= kBase && size <= memory_.size() && address - kBase <= memory_.size() - size;
  }
  std::uint8_t ByteAt(std::uint64_t address) const {
    return static_cast<std::uint8_t>(memory_[address - kBase]);
  }
  // The mapped bytes from `address` on (which must be mapped).
  const std::uint8_t* Bytes(std::uint64_t address) const {
    return reinterpret_cast<const std::uint8_t*>(&memory_[address - kBase]);
  }
  template <typename T>
  T ObjectAt(std::uint64_t address) const {
    T value;
    std::memcpy(&value, Bytes(address), sizeof value);
    return value;
  }

  Result<void> Read(std::uint64_t address, std::span<std::byte> out) override {
    if (out.empty()) return {};
    if (!Mapped(address, out.size())) return FailErrno(EFAULT, "fake read");
    std::memcpy(out.data(), Bytes(address), out.size());
    return {};
  }
  Result<void> Write(std::uint64_t address, std::span<const std::byte> data) override {
    if (data.empty()) return {};
    if (!Mapped(address, data.size())) return FailErrno(EFAULT, "fake write");
    std::memcpy(memory_.data() + (address - kBase), data.data(), data.size());
    ++writes;
    return {};
  }
  bool Valid() override { return valid; }
  Result<unsigned int> Personality() override { return persona; }
  Result<UniqueFd> Descriptor(int fd) override {
    if (sealed_) {
      if (fd < 0 || fd >= kSealedDescriptors) return FailErrno(EBADF, "no such descriptor");
      UniqueFd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
      if (!null) return FailErrno("open /dev/null");
      return null;
    }
    // The test process's own: the fake workload shares them.
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
    if (sealed_) return FailErrno(ENOENT, "sealed: no executable");
    UniqueFd fd(::open((root + exe).c_str(), O_PATH | O_CLOEXEC));
    if (!fd) return FailErrno("fake executable");
    return fd;
  }
  // The fake's namespaces are the test's own.
  Result<UniqueFd> Namespace(std::string_view type) override {
    UniqueFd fd(::open(("/proc/self/ns/" + std::string(type)).c_str(), O_PATH | O_CLOEXEC));
    if (!fd) return FailErrno("fake namespace");
    return fd;
  }
  Result<std::string> RootPath() override {
    if (sealed_) return FailErrno(ENOENT, "sealed: no root");
    return root;
  }
  Result<bool> Chrooted() override { return false; }
  // `cwd` is a path in the fake container (under `root`).
  Result<std::string> WorkingDirectoryPath() override { return cwd; }
  Result<std::string> DescriptorPath(int fd) override {
    if (sealed_) return FailErrno(EBADF, "sealed: no path");
    std::error_code ec;
    std::string path = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
    if (ec) return FailErrno(EBADF, "fake descriptor path");
    return path.starts_with(root) && root != "/" ? path.substr(root.size()) : path;
  }
  // This process's own credentials and pid; the namespace ids as set.
  Result<ThreadStatus> Status() override {
    if (sealed_) return ThreadStatus{};
    return ThreadStatus{.ruid = ruid,
                        .rgid = rgid,
                        .euid = euid,
                        .egid = egid,
                        .suid = euid,
                        .sgid = egid,
                        .fsuid = fsuid,
                        .fsgid = fsgid,
                        .cap_effective = capabilities,
                        .cap_permitted = capabilities,
                        .umask = 022,
                        .tgid = ::getpid(),
                        .ns_tgid = ns_tgid,
                        .ns_tid = ns_tid};
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
  Result<UniqueFd> OpenDir(const std::string& path) const {
    if (sealed_) return FailErrno(ENOENT, "sealed: no directory");
    UniqueFd fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd) return FailErrno("fake directory");
    return fd;
  }

  std::vector<std::byte> memory_;
  bool sealed_ = false;
};

}  // namespace vigil::sentry
