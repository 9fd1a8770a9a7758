// The runtime-spec features document (features.md) that `vigil features`
// prints and containerd reads at start-up, derived from the name tables.
#pragma once

#include <string>

namespace vigil::config {

// Pretty-printed JSON ending in a newline.
std::string FeaturesJson();

}  // namespace vigil::config
