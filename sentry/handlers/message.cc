#include "sentry/handlers/message.h"

#include <limits.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vigil::sentry {
namespace {

// The kernel's SCM_MAX_FD (include/net/scm.h): more descriptors in one
// SCM_RIGHTS message are refused with EINVAL.
constexpr std::size_t kMaxPassedDescriptors = 253;

}  // namespace

Result<void> CopyBytes(Tracee& tracee, std::uint64_t pointer, std::size_t length,
                       std::vector<char>& buffer) {
  const std::size_t at = buffer.size();
  buffer.resize(at + length);
  return tracee.Read(pointer, std::as_writable_bytes(std::span(buffer.data() + at, length)));
}

Result<std::vector<char>> CopyPayload(Tracee& tracee, const msghdr& message) {
  if (message.msg_iovlen > IOV_MAX) return FailErrno(EMSGSIZE, "more than IOV_MAX iovecs");
  std::vector<iovec> iovs(message.msg_iovlen);
  if (!iovs.empty()) {
    RETURN_IF_ERROR(tracee.Read(reinterpret_cast<std::uint64_t>(message.msg_iov),
                                std::as_writable_bytes(std::span(iovs))));
  }
  std::vector<char> payload;
  for (const iovec& iov : iovs) {
    const std::size_t take = std::min(iov.iov_len, kMaxPayload - payload.size());
    RETURN_IF_ERROR(
        CopyBytes(tracee, reinterpret_cast<std::uint64_t>(iov.iov_base), take, payload));
    if (payload.size() == kMaxPayload) break;
  }
  return payload;
}

Result<std::vector<char>> CopyControl(Tracee& tracee, const msghdr& message) {
  std::vector<char> control;
  if (message.msg_control == nullptr || message.msg_controllen == 0) return control;
  if (message.msg_controllen > kMaxControl) return FailErrno(ENOBUFS, "control data too long");
  RETURN_IF_ERROR(CopyBytes(tracee, reinterpret_cast<std::uint64_t>(message.msg_control),
                            message.msg_controllen, control));
  return control;
}

Result<std::vector<char>> TranslateControl(Tracee& tracee, std::vector<char> control,
                                           std::vector<UniqueFd>& held) {
  // Walked by hand, checking each length as the kernel's CMSG_OK does:
  // glibc's CMSG_FIRSTHDR never checks the first header's length, and its
  // CMSG_NXTHDR lets a later one be shorter than a header, so a length the
  // workload chose could underflow the descriptor count or run past the
  // buffer. Trailing bytes too few for a header are ignored, as the kernel's
  // for_each_cmsghdr ignores them.
  std::size_t offset = 0;
  while (offset + sizeof(cmsghdr) <= control.size()) {
    cmsghdr header;
    std::memcpy(&header, control.data() + offset, sizeof header);
    if (header.cmsg_len < sizeof(cmsghdr) || header.cmsg_len > control.size() - offset) {
      return FailErrno(EINVAL, "control message length");
    }
    if (header.cmsg_level == SOL_SOCKET && header.cmsg_type == SCM_CREDENTIALS) {
      return FailErrno(EPERM, "SCM_CREDENTIALS");
    }
    if (header.cmsg_level == SOL_SOCKET && header.cmsg_type == SCM_RIGHTS) {
      // None is a message without descriptors, as the kernel's scm_fp_copy
      // takes it.
      const std::size_t count = (header.cmsg_len - CMSG_LEN(0)) / sizeof(int);
      if (count > kMaxPassedDescriptors) {
        return FailErrno(EINVAL, "SCM_RIGHTS descriptor count");
      }
      char* fds = control.data() + offset + CMSG_LEN(0);
      for (std::size_t i = 0; i < count; ++i) {
        int theirs;
        std::memcpy(&theirs, fds + i * sizeof(int), sizeof theirs);
        ASSIGN_OR_RETURN(UniqueFd ours, tracee.Descriptor(theirs));
        const int number = ours.Get();
        std::memcpy(fds + i * sizeof(int), &number, sizeof number);
        held.push_back(std::move(ours));
      }
    }
    offset += CMSG_ALIGN(header.cmsg_len);
  }
  return control;
}

}  // namespace vigil::sentry
