// Random names: ids of sandboxes that no other run picks.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.h"

namespace vigil {

// `bytes` random bytes from getrandom(2), as 2 × bytes lowercase hex digits.
Result<std::string> RandomHex(std::size_t bytes);

}  // namespace vigil
