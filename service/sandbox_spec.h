// The OCI config of one sandbox of a template: the template's files (the
// host's own, or its bundle's root), its policy and limits, and the kernel
// (kernel.py) as its only process.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "config/oci/spec.h"
#include "service/template.h"

namespace vigil::service {

// kernel.py, compiled in.
extern const std::string_view kKernelScript;

// Where a sandbox of the host template keeps what it writes: a tmpfs of its
// own, its working directory and home.
inline constexpr std::string_view kWorkspace = "/workspace";

// The config for a sandbox of `t` whose bundle is `bundle_dir` (the host
// template's root is BUNDLE/rootfs, made here). A template with egress
// needs `create --user-network` too. As root, the host template's code runs as nobody without
// capabilities; as a user, as that user (vigil do's mapping).
Result<config::Spec> SandboxSpec(const Template& t, const std::string& bundle_dir);

}  // namespace vigil::service
