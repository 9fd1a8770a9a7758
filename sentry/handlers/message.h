// What sendto and sendmsg hand the sentry to send, copied once from the
// workload (docs/design.md, rule 2) and checked as the kernel would check it:
// the payload behind the iovecs, and the control data with the workload's
// descriptors replaced by the sentry's duplicates. Pure decoding: no socket
// is touched, so it is unit-tested and fuzzed with a fake Tracee.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/core/thread_status.h"
#include "sentry/core/tracee.h"

namespace vigil::sentry {

// What one call may hand the sentry to send. More is a short write on a
// stream socket (the caller sends the rest); a datagram this large is
// refused by the kernel anyway (EMSGSIZE).
inline constexpr std::size_t kMaxPayload = 4 << 20;
inline constexpr std::size_t kMaxControl = 64 << 10;

// Appends `length` bytes at `pointer` to `buffer` (EFAULT for a bad pointer).
Result<void> CopyBytes(TraceeMemory& tracee, std::uint64_t pointer, std::size_t length,
                       std::vector<char>& buffer);

// The bytes `message`'s iovecs point to, concatenated and cut at
// kMaxPayload: EMSGSIZE for more than IOV_MAX iovecs, EFAULT for a bad one.
Result<std::vector<char>> CopyPayload(TraceeMemory& tracee, const msghdr& message);

// `message`'s control data as the workload wrote it (empty when it has
// none): ENOBUFS beyond kMaxControl, EFAULT for a bad pointer.
Result<std::vector<char>> CopyControl(TraceeMemory& tracee, const msghdr& message);

// Who sends, for the credentials a message may claim (SCM_CREDENTIALS).
struct CredentialsSender {
  // The sending thread; nullptr refuses every claim (EPERM).
  const ThreadStatus* thread = nullptr;
  // Its ids are its user namespace's, not the sentry's: claims refused.
  bool in_user_namespace = false;
};

// `control` with the workload's descriptors (SCM_RIGHTS) replaced by the
// sentry's duplicates, which `held` keeps open until sent, and its
// credentials (SCM_CREDENTIALS) checked as the kernel's scm_check_creds
// checks the sender's claim (its own pid; its real, effective or saved uid
// and gid, or any with CAP_SETUID / CAP_SETGID) and their pid rewritten to
// the sender's in the sentry's pid namespace, where the sentry sends them.
// A claim the kernel would refuse, or one vigil cannot rewrite (another
// pid, ids in a user namespace), fails with EPERM. Malformed headers fail
// with EINVAL as in the kernel's __scm_send: a length shorter than the
// header or past the buffer, more descriptors than the kernel's SCM_MAX_FD,
// credentials of the wrong size.
Result<std::vector<char>> TranslateControl(Tracee& tracee, std::vector<char> control,
                                           std::vector<UniqueFd>& held,
                                           const CredentialsSender& sender = {});

// Whether well-formed `control` (TranslateControl's) holds a SOL_SOCKET
// message of `type` (SCM_RIGHTS, SCM_CREDENTIALS).
bool Holds(const std::vector<char>& control, int type);

// Whether well-formed `control` passes at least one descriptor.
bool PassesDescriptors(const std::vector<char>& control);

// Only the SCM_CREDENTIALS of well-formed `control`: what goes with every
// part of a message a stream socket sends in several (the kernel attaches
// one call's credentials to each part, its descriptors to the first).
std::vector<char> CredentialsOf(const std::vector<char>& control);

// The pid of every SCM_CREDENTIALS in well-formed `control` set to `pid`.
void SetCredentialsPid(std::vector<char>& control, pid_t pid);

// `control` with the credentials the kernel attaches to a unix socket's
// message by default added: the sender's pid (in the sentry's pid
// namespace), real uid and gid. The sentry sends with these, since the
// kernel would attach its own.
void AddSenderCredentials(std::vector<char>& control, const ThreadStatus& thread);

}  // namespace vigil::sentry
