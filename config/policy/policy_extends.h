// Internal to config/policy: composing a policy document that says
// "extends" onto the built-in profile it names.
#pragma once

#include "base/json/json_reader.h"
#include "base/result.h"
#include "config/policy/policy.h"

namespace vigil::config {

// `extension`, decoded from `document` (whose "extends" DecodeStrict has
// checked), composed onto that profile; `extension` itself when the
// document extends nothing.
Result<Policy> Extend(json::Value document, const Policy& extension);

}  // namespace vigil::config
