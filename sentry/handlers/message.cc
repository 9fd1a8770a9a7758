#include "sentry/handlers/message.h"

#include <limits.h>
#include <linux/capability.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace vigil::sentry {
namespace {

// The kernel's SCM_MAX_FD (include/net/scm.h): more descriptors in one
// SCM_RIGHTS message are refused with EINVAL.
constexpr std::size_t kMaxPassedDescriptors = 253;

bool HasCapability(const ThreadStatus& thread, int capability) {
  return (thread.cap_effective >> capability) & 1;
}

// The kernel's scm_check_creds for `claim` from `sender`, then the pid
// rewritten for the sentry to send (0 if it may not be sent).
int CheckCredentials(ucred& claim, const CredentialsSender& sender) {
  if (sender.thread == nullptr || sender.in_user_namespace) return EPERM;
  const ThreadStatus& t = *sender.thread;
  // Another pid needs CAP_SYS_ADMIN; vigil does not look it up in the
  // container's pid namespace, so it refuses that claim as well.
  if (claim.pid != t.ns_tgid) return EPERM;
  const bool uid_ok = claim.uid == t.ruid || claim.uid == t.euid || claim.uid == t.suid ||
                      HasCapability(t, CAP_SETUID);
  const bool gid_ok = claim.gid == t.rgid || claim.gid == t.egid || claim.gid == t.sgid ||
                      HasCapability(t, CAP_SETGID);
  if (!uid_ok || !gid_ok) return EPERM;
  claim.pid = t.tgid;
  return 0;
}

// Calls `each` with every message header of well-formed `control`
// (TranslateControl's) and where its data starts; returns where the last
// one ends, aligned.
template <typename Each>
std::size_t ForEachMessage(const std::vector<char>& control, Each each) {
  std::size_t offset = 0;
  while (offset + sizeof(cmsghdr) <= control.size()) {
    cmsghdr header;
    std::memcpy(&header, control.data() + offset, sizeof header);
    if (header.cmsg_len < sizeof(cmsghdr)) break;
    each(header, offset + CMSG_LEN(0));
    offset += CMSG_ALIGN(header.cmsg_len);
  }
  return std::min(offset, control.size());
}

}  // namespace

Result<void> CopyBytes(TraceeMemory& tracee, std::uint64_t pointer, std::size_t length,
                       std::vector<char>& buffer) {
  const std::size_t at = buffer.size();
  buffer.resize(at + length);
  return tracee.Read(pointer, std::as_writable_bytes(std::span(buffer.data() + at, length)));
}

Result<std::vector<char>> CopyPayload(TraceeMemory& tracee, const msghdr& message) {
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

Result<std::vector<char>> CopyControl(TraceeMemory& tracee, const msghdr& message) {
  std::vector<char> control;
  if (message.msg_control == nullptr || message.msg_controllen == 0) return control;
  if (message.msg_controllen > kMaxControl) return FailErrno(ENOBUFS, "control data too long");
  RETURN_IF_ERROR(CopyBytes(tracee, reinterpret_cast<std::uint64_t>(message.msg_control),
                            message.msg_controllen, control));
  return control;
}

Result<std::vector<char>> TranslateControl(Tracee& tracee, std::vector<char> control,
                                           std::vector<UniqueFd>& held,
                                           const CredentialsSender& sender) {
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
      if (header.cmsg_len != CMSG_LEN(sizeof(ucred))) {
        return FailErrno(EINVAL, "SCM_CREDENTIALS length");
      }
      ucred claim;
      std::memcpy(&claim, control.data() + offset + CMSG_LEN(0), sizeof claim);
      if (int refused = CheckCredentials(claim, sender)) {
        return FailErrno(refused, "SCM_CREDENTIALS");
      }
      std::memcpy(control.data() + offset + CMSG_LEN(0), &claim, sizeof claim);
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

bool Holds(const std::vector<char>& control, int type) {
  bool found = false;
  ForEachMessage(control, [&](const cmsghdr& header, std::size_t) {
    found |= header.cmsg_level == SOL_SOCKET && header.cmsg_type == type;
  });
  return found;
}

bool PassesDescriptors(const std::vector<char>& control) {
  bool found = false;
  ForEachMessage(control, [&](const cmsghdr& header, std::size_t) {
    found |= header.cmsg_level == SOL_SOCKET && header.cmsg_type == SCM_RIGHTS &&
             header.cmsg_len >= CMSG_LEN(sizeof(int));
  });
  return found;
}

std::vector<char> CredentialsOf(const std::vector<char>& control) {
  std::vector<char> credentials;
  ForEachMessage(control, [&](const cmsghdr& header, std::size_t data) {
    if (header.cmsg_level == SOL_SOCKET && header.cmsg_type == SCM_CREDENTIALS) {
      const char* begin = control.data() + data - CMSG_LEN(0);
      credentials.insert(credentials.end(), begin, begin + CMSG_SPACE(sizeof(ucred)));
    }
  });
  return credentials;
}

void SetCredentialsPid(std::vector<char>& control, pid_t pid) {
  ForEachMessage(control, [&](const cmsghdr& header, std::size_t data) {
    if (header.cmsg_level == SOL_SOCKET && header.cmsg_type == SCM_CREDENTIALS) {
      std::memcpy(control.data() + data + offsetof(ucred, pid), &pid, sizeof pid);
    }
  });
}

void AddSenderCredentials(std::vector<char>& control, const ThreadStatus& thread) {
  // After the last message, where the kernel's CMSG_ALIGN steps look for
  // the next (bytes too few for a header, which it ignored, dropped).
  const std::size_t at = ForEachMessage(control, [](const cmsghdr&, std::size_t) {});
  control.resize(at + CMSG_SPACE(sizeof(ucred)), 0);
  cmsghdr header{};
  header.cmsg_len = CMSG_LEN(sizeof(ucred));
  header.cmsg_level = SOL_SOCKET;
  header.cmsg_type = SCM_CREDENTIALS;
  std::memcpy(control.data() + at, &header, sizeof header);
  const ucred own{.pid = thread.tgid, .uid = thread.ruid, .gid = thread.rgid};
  std::memcpy(control.data() + at + CMSG_LEN(0), &own, sizeof own);
}

}  // namespace vigil::sentry
