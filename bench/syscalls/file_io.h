// File I/O throughput: sequential write, then read back, of one file.
#pragma once

#include <cstdint>

namespace vigil::bench {

struct IoResult {
  double write_mib_s = 0;
  double read_mib_s = 0;
};

// Writes `total` bytes in `block`-byte writes to a new file in `dir`, then
// reads it back the same way, and removes it. False (errno set) on failure.
bool MeasureFileIo(const char* dir, std::uint64_t block, std::uint64_t total, IoResult& out);

}  // namespace vigil::bench
