// Pieces of Validate shared between validate.cc and validate_linux.cc.
#pragma once

#include <string_view>

#include "base/result.h"
#include "config/oci/json_path.h"
#include "config/oci/spec.h"

namespace vigil::config {

Result<void> ValidateLinux(const Linux& linux_spec, const JsonPath& path);

// "path: must be an absolute path, got "x"" unless `value` starts with '/'.
Result<void> CheckAbsolute(const JsonPath& path, std::string_view value);

// A cpuset list such as "0-3,7"; empty is allowed (inherit).
Result<void> CheckCpuList(const JsonPath& path, std::string_view value);

}  // namespace vigil::config
