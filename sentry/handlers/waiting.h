// Waiting on the workload's behalf as the kernel's blocking calls wait: in
// the handler's fiber (the loop serves others meanwhile), and only until a
// signal the thread would take arrives, when the call must end as the
// kernel's interrupted one (kRestartSys: restarted after an SA_RESTART
// handler, EINTR otherwise, the process killed by a fatal signal).
#pragma once

#include "base/result.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {

// Suspends the handler for `milliseconds`, for a condition nothing can be
// polled for (a FIFO's other end, room in a unix listener's backlog). Then
// fails with kRestartSys if a signal the thread would take is pending, and
// ENOENT if the call is gone.
Result<void> PauseForRetry(HandlerContext& context, int milliseconds);

// Suspends the handler until `fd` has one of `events` or 50 ms pass,
// whichever is first (the caller retries its non-blocking call either
// way), then fails as PauseForRetry does.
Result<void> WaitInterruptibly(HandlerContext& context, int fd, std::uint32_t events);

}  // namespace vigil::sentry
