// What sendto and sendmsg hand the sentry to send, copied once from the
// workload (DESIGN.md §2 rule 2) and checked as the kernel would check it:
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
#include "sentry/core/tracee.h"

namespace vigil::sentry {

// What one call may hand the sentry to send. A stream socket sends the
// rest on the next call; a datagram this large is refused by the kernel
// anyway (EMSGSIZE).
inline constexpr std::size_t kMaxPayload = 4 << 20;
inline constexpr std::size_t kMaxControl = 64 << 10;

// Appends `length` bytes at `pointer` to `buffer` (EFAULT for a bad pointer).
Result<void> CopyBytes(Tracee& tracee, std::uint64_t pointer, std::size_t length,
                       std::vector<char>& buffer);

// The bytes `message`'s iovecs point to, concatenated and cut at
// kMaxPayload: EMSGSIZE for more than IOV_MAX iovecs, EFAULT for a bad one.
Result<std::vector<char>> CopyPayload(Tracee& tracee, const msghdr& message);

// `message`'s control data as the workload wrote it (empty when it has
// none): ENOBUFS beyond kMaxControl, EFAULT for a bad pointer.
Result<std::vector<char>> CopyControl(Tracee& tracee, const msghdr& message);

// `control` with the workload's descriptors (SCM_RIGHTS) replaced by the
// sentry's duplicates, which `held` keeps open until sent. Malformed headers
// fail with EINVAL as in the kernel's __scm_send: a length shorter than the
// header or past the buffer, SCM_RIGHTS with no descriptor or more than the
// kernel's SCM_MAX_FD. Credentials (SCM_CREDENTIALS) fail with EPERM: the
// sentry's privilege would vouch for whatever the workload claims.
Result<std::vector<char>> TranslateControl(Tracee& tracee, std::vector<char> control,
                                           std::vector<UniqueFd>& held);

}  // namespace vigil::sentry
