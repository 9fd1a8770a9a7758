// Cross-field rules of the runtime-spec, checked in one place before anything
// is created: what a single property's type cannot say (a hostname needs a
// UTS namespace, mappings need a user namespace, no namespace twice, ...).
#pragma once

#include "base/result.h"
#include "config/oci/json_path.h"
#include "config/oci/spec.h"

namespace vigil::config {

// The first violated rule, as "json.path: what is wrong".
Result<void> Validate(const Spec& spec);

// The rules for a process alone; `vigil exec --process` documents use them.
Result<void> ValidateProcess(const Process& process, const JsonPath& path);

}  // namespace vigil::config
