// A workload whose memory is the fuzzer's input, for the syscall-argument
// fuzzers: the input mapped at kBase, the rest of its last page filled with
// one byte, and everything else unmapped. Pages are whole, as in a real
// address space, so a read fails exactly where the kernel's would
// (tests/sentry/fake_tracee.h maps bytes, not pages). The input starts at a
// fixed address so that pointers inside it (a msghdr's) can point into it.
// Descriptors 0-15 exist (duplicates of /dev/null); no other does.
#pragma once

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "sentry/core/tracee.h"

namespace vigil::sentry {

class MemoryTracee final : public Tracee {
 public:
  static constexpr std::uint64_t kPage = 4096;
  static constexpr std::uint64_t kBase = 0x10000;
  static constexpr int kDescriptors = 16;

  MemoryTracee(std::span<const std::uint8_t> input, std::uint8_t fill)
      : memory_(std::max<std::size_t>(1, (input.size() + kPage - 1) / kPage) * kPage, fill) {
    if (!input.empty()) std::memcpy(memory_.data(), input.data(), input.size());
  }

  // Just past the last mapped byte.
  std::uint64_t End() const { return kBase + memory_.size(); }

  // Whether all of [address, address + size) is mapped; no wrap-around.
  bool Mapped(std::uint64_t address, std::size_t size) const {
    return address >= kBase && size <= memory_.size() && address - kBase <= memory_.size() - size;
  }
  std::uint8_t ByteAt(std::uint64_t address) const { return memory_[address - kBase]; }
  // The mapped bytes from `address` on (which must be mapped).
  const std::uint8_t* Bytes(std::uint64_t address) const { return &memory_[address - kBase]; }

  // Nothing to copy succeeds at any address, as pread(2) of /proc/PID/mem
  // does for the real tracee.
  Result<void> Read(std::uint64_t address, std::span<std::byte> out) override {
    if (out.empty()) return {};
    if (!Mapped(address, out.size())) return FailErrno(EFAULT, "unmapped");
    std::memcpy(out.data(), memory_.data() + (address - kBase), out.size());
    return {};
  }
  Result<void> Write(std::uint64_t address, std::span<const std::byte> data) override {
    if (data.empty()) return {};
    if (!Mapped(address, data.size())) return FailErrno(EFAULT, "unmapped");
    std::memcpy(memory_.data() + (address - kBase), data.data(), data.size());
    return {};
  }
  bool Valid() override { return true; }
  Result<unsigned int> Personality() override { return 0u; }
  Result<UniqueFd> Descriptor(int fd) override {
    if (fd < 0 || fd >= kDescriptors) return FailErrno(EBADF, "no such descriptor");
    UniqueFd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!null) return FailErrno("open /dev/null");
    return null;
  }
  // Nothing that resolves paths on the host is fuzzed through this tracee.
  Result<SharedFd> Root() override { return FailErrno(ENOENT, "no root"); }
  Result<UniqueFd> WorkingDirectory() override { return FailErrno(ENOENT, "no cwd"); }
  Result<UniqueFd> Executable() override { return FailErrno(ENOENT, "no executable"); }
  Result<std::string> RootPath() override { return FailErrno(ENOENT, "no root"); }
  Result<bool> Chrooted() override { return false; }
  Result<std::string> WorkingDirectoryPath() override { return std::string("/"); }
  Result<std::string> DescriptorPath(int) override { return FailErrno(EBADF, "no path"); }
  Result<ThreadStatus> Status() override { return ThreadStatus{}; }

 private:
  std::vector<std::uint8_t> memory_;
};

}  // namespace vigil::sentry
