// Signal names as `kill` accepts them: "TERM", "SIGTERM", "15", "sigterm".
#pragma once

#include <string_view>

#include "base/result.h"

namespace vigil::lifecycle {

Result<int> ParseSignal(std::string_view text);

}  // namespace vigil::lifecycle
