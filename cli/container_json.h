// The JSON objects `state` and `list` print for a container, with runc's
// field names and order (go-runc parses them, rootfs and created included).
#pragma once

#include "base/json/json_writer.h"
#include "lifecycle/lifecycle.h"
#include "lifecycle/memory_release.h"

namespace vigil::cli {

// ociVersion, id, pid, status, bundle, rootfs, created, owner; and when
// `detailed` (state, not list) annotations, then the sentry's policy in
// force (as `vigil policy show` prints it) and platform, and a paused
// container's `memory` when given.
void WriteContainerView(json::Writer& w, const lifecycle::ContainerView& view, bool detailed,
                        const lifecycle::PausedMemory* paused_memory = nullptr);

// A paused container's memory: {"resident": BYTES, "swapped": BYTES} and,
// after pause --release-memory, "release": {"before": BYTES, "after":
// BYTES}; "note" says why memory stayed resident when the host explains it
// (no swap, swap full).
void WritePausedMemory(json::Writer& w, const lifecycle::PausedMemory& memory);

}  // namespace vigil::cli
