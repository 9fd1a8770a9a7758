#include "seccomp/bpf.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil::seccomp {

// libseccomp 2.5 exports only to a file descriptor (seccomp_export_bpf_mem is
// 2.6), so the program goes through a memfd.
Result<std::vector<sock_filter>> ExportBpf(scmp_filter_ctx ctx) {
  UniqueFd memfd(::memfd_create("vigil-seccomp-bpf", MFD_CLOEXEC));
  if (!memfd) return FailErrno("memfd_create for the seccomp program");
  if (int rc = seccomp_export_bpf(ctx, memfd.Get()); rc < 0) {
    return FailErrno(-rc, "libseccomp: export the BPF program");
  }
  struct stat st {};
  if (::fstat(memfd.Get(), &st) != 0) return FailErrno("fstat the exported seccomp program");
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0 || size % sizeof(sock_filter) != 0) {
    return Fail(StrCat("libseccomp exported a BPF program of ", size, " bytes"));
  }
  std::vector<sock_filter> program(size / sizeof(sock_filter));
  auto* out = reinterpret_cast<char*>(program.data());
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(memfd.Get(), out + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno("read the exported seccomp program");
    if (n == 0) return Fail("the exported seccomp program was truncated");
    done += static_cast<std::size_t>(n);
  }
  return program;
}

}  // namespace vigil::seccomp
