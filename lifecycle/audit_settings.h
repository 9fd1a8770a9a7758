// Where a container's audit log goes and how large it may grow: from the
// runtime's flags (the operator's) and the container's annotations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/oci/spec.h"
#include "runtime/container/state_dir.h"
#include "sentry/audit/log.h"

namespace vigil::lifecycle {

// Where dev.vigil.audit may put a log.
inline constexpr std::string_view kAuditAnnotationDir = "/var/log/vigil";
// The caps when neither flag nor annotation sets one.
inline constexpr std::uint64_t kDefaultAuditMaxBytes = 10 << 20;
inline constexpr std::uint32_t kDefaultAuditMaxFiles = 3;

// Where the audit records go: the annotation, else `flag_path` (--audit),
// else KeptAuditLogPath under the state root (made here). The annotation
// comes with the container, so it may only name a file in
// `annotation_dir` (kAuditAnnotationDir; made here when used: a bare name,
// or an absolute path there), never any file the runtime could write.
Result<std::string> ResolveAuditPath(const config::Spec& spec, const std::string& flag_path,
                                     const runtime::StateDir& dir, std::string_view annotation_dir);

// The log's rotation: --audit-max-size (`flag_size`, a size as Docker's
// log options take it, "-1" for no cap) and --audit-max-files
// (`flag_files`), each defaulting to kDefault*; an annotation may tighten
// them, never loosen them (the operator's cap holds whatever a pod asks).
// Errors name the flag or annotation.
Result<sentry::audit::Rotation> ResolveAuditRotation(const config::Spec& spec,
                                                     const std::string& flag_size,
                                                     const std::string& flag_files);

}  // namespace vigil::lifecycle
