// `vigil syscalls`: the syscall table for people (aligned text) and for
// tools (JSON), like `runsc help syscalls`.
#pragma once

#include <optional>
#include <string>

#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

// Only the syscalls of `tier` when given; text ends with a count per tier.
std::string SyscallListingText(std::optional<Tier> tier);
std::string SyscallListingJson(std::optional<Tier> tier);

// "fast", "mediated", "traced" or "denied"; nullopt for anything else.
std::optional<Tier> ParseTier(std::string_view name);

}  // namespace vigil::sentry
