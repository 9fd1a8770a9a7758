// A workload thread simulated in memory, for handler tests: one mapped
// region, and a switch that makes the notification go stale.
#pragma once

#include <cerrno>
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

  template <typename T>
  T ObjectAt(std::uint64_t address) const {
    T value;
    std::memcpy(&value, memory_.data() + (address - kBase), sizeof value);
    return value;
  }

  bool valid = true;
  unsigned int persona = 0;
  int writes = 0;

 private:
  bool Mapped(std::uint64_t address, std::size_t size) const {
    return address >= kBase && address - kBase + size <= memory_.size();
  }
  std::vector<std::byte> memory_;
};

}  // namespace vigil::sentry
