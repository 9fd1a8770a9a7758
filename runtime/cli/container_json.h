// The JSON objects `state` and `list` print for a container, with runc's
// field names and order (go-runc parses them, rootfs and created included).
#pragma once

#include "base/json/json_writer.h"
#include "runtime/container/lifecycle.h"

namespace vigil::cli {

// ociVersion, id, pid, status, bundle, rootfs, created, owner; and when
// `detailed` (state, not list) annotations, then the sentry's policy in
// force (as `vigil policy show` prints it) and platform.
void WriteContainerView(json::Writer& w, const runtime::ContainerView& view, bool detailed);

}  // namespace vigil::cli
