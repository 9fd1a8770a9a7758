// The JSON objects `state` and `list` print for a container, with runc's
// field names and order (go-runc parses them, rootfs and created included).
#pragma once

#include "base/json/json_writer.h"
#include "runtime/container/lifecycle.h"

namespace vigil::cli {

// ociVersion, id, pid, status, bundle, rootfs, created, owner; and
// annotations when `with_annotations` (state prints them, list does not).
void WriteContainerView(json::Writer& w, const runtime::ContainerView& view, bool with_annotations);

}  // namespace vigil::cli
