// A workload thread's memory, as handlers read it: what its syscall's
// pointer arguments point to, copied once (docs/design.md, rule 2), and the
// answers written back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/result.h"

namespace vigil::sentry {

class TraceeMemory {
 public:
  virtual ~TraceeMemory() = default;

  // Copies workload memory. An address the workload cannot read fails with
  // EFAULT, as the syscall itself would.
  virtual Result<void> Read(std::uint64_t address, std::span<std::byte> out) = 0;
  virtual Result<void> Write(std::uint64_t address, std::span<const std::byte> data) = 0;

  // Writes `value`'s bytes to `address`.
  template <typename T>
  Result<void> WriteObject(std::uint64_t address, const T& value) {
    return Write(address, std::as_bytes(std::span(&value, 1)));
  }
};

}  // namespace vigil::sentry
