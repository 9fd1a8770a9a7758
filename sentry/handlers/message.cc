#include "sentry/handlers/message.h"

#include <limits.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vigil::sentry {

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
  msghdr view{};
  view.msg_control = control.data();
  view.msg_controllen = control.size();
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&view); cmsg != nullptr; cmsg = CMSG_NXTHDR(&view, cmsg)) {
    if (cmsg->cmsg_level != SOL_SOCKET) continue;
    if (cmsg->cmsg_type == SCM_CREDENTIALS) return FailErrno(EPERM, "SCM_CREDENTIALS");
    if (cmsg->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    auto* fds = reinterpret_cast<int*>(CMSG_DATA(cmsg));
    for (std::size_t i = 0; i < count; ++i) {
      int theirs;
      std::memcpy(&theirs, fds + i, sizeof theirs);
      ASSIGN_OR_RETURN(UniqueFd ours, tracee.Descriptor(theirs));
      int number = ours.Get();
      std::memcpy(fds + i, &number, sizeof number);
      held.push_back(std::move(ours));
    }
  }
  return control;
}

}  // namespace vigil::sentry
