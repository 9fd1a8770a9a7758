// The annotations of a bundle's config.json that vigil reads ("dev.vigil."
// and a name), all in one place: clients that pass annotations but no
// runtime flags (containerd's pod and container annotations, Kubernetes,
// the Agent Sandbox) choose vigil's settings with them. docs/policy.md,
// docs/audit.md, docs/agents.md and docs/deploy.md say what each takes.
#pragma once

#include <string_view>

namespace vigil::config {

// Every name starts so (containerd's pod_annotations = ["dev.vigil.*"]).
inline constexpr std::string_view kVigilAnnotationPrefix = "dev.vigil.";

// The sentry's policy: a profile or inline JSON, never a file.
inline constexpr std::string_view kPolicyAnnotation = "dev.vigil.policy";
// The sentry's backend (--platform's values).
inline constexpr std::string_view kPlatformAnnotation = "dev.vigil.platform";
// The audit log: a file under kAuditAnnotationDir.
inline constexpr std::string_view kAuditAnnotation = "dev.vigil.audit";
// The audit log's caps (Docker's max-size and max-file).
inline constexpr std::string_view kAuditMaxSizeAnnotation = "dev.vigil.audit-max-size";
inline constexpr std::string_view kAuditMaxFilesAnnotation = "dev.vigil.audit-max-files";
// The container's timeout from its start, and the grace between the TERM
// and the KILL that end it then.
inline constexpr std::string_view kTimeoutAnnotation = "dev.vigil.timeout";
inline constexpr std::string_view kTimeoutGraceAnnotation = "dev.vigil.timeout-grace";
// Makes a plain `pause` release memory.
inline constexpr std::string_view kPauseReleaseMemoryAnnotation = "dev.vigil.pause-release-memory";
// The kernel release uname(2) reports.
inline constexpr std::string_view kKernelReleaseAnnotation = "dev.vigil.kernel-release";

}  // namespace vigil::config
