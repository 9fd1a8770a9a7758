// An exec's arguments for its audit record: what the workload's memory held
// when the sentry looked. The kernel copies them again once the call is let
// through, so a racing thread could make the two differ; nothing is decided
// on them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sentry/handlers/handler.h"

namespace vigil::sentry {

// At most this many bytes of arguments are recorded.
inline constexpr std::size_t kArgvAuditBytes = 1024;
// Arguments past this many are not counted.
inline constexpr std::size_t kArgvCountLimit = 4096;

// Adds "argv" (the arguments shell-quoted and joined by spaces, cut at
// kArgvAuditBytes and then ending in "...") and "argc" (how many there
// are, or "4096+") for the NULL-terminated array at `argv`; an array that
// cannot be read is "(unreadable)".
void AuditArgv(HandlerContext& context, std::uint64_t argv);

}  // namespace vigil::sentry
