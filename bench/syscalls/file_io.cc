#include "bench/syscalls/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace vigil::bench {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

bool MeasureFileIo(const char* dir, std::uint64_t block, std::uint64_t total, IoResult& out) {
  char path[4096];
  std::snprintf(path, sizeof path, "%s/vigil-bench-io-%d", dir, static_cast<int>(::getpid()));
  std::vector<char> buffer(block, 'b');
  int fd = ::open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = true;
  auto start = std::chrono::steady_clock::now();
  for (std::uint64_t done = 0; ok && done < total; done += block) {
    ok = ::write(fd, buffer.data(), block) == static_cast<ssize_t>(block);
  }
  // The data reaches the page cache, not the disk: this is the syscall and
  // copy path a container adds to, not the device.
  double written = Seconds(start);
  if (ok && ::lseek(fd, 0, SEEK_SET) != 0) ok = false;
  start = std::chrono::steady_clock::now();
  for (std::uint64_t done = 0; ok && done < total; done += block) {
    ok = ::read(fd, buffer.data(), block) == static_cast<ssize_t>(block);
  }
  double read = Seconds(start);
  ::close(fd);
  ::unlink(path);
  if (!ok) return false;
  const double mib = static_cast<double>(total) / (1024.0 * 1024.0);
  out.write_mib_s = mib / written;
  out.read_mib_s = mib / read;
  return true;
}

}  // namespace vigil::bench
