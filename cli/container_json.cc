#include "cli/container_json.h"

#include "config/oci/spec.h"
#include "config/policy/policy.h"

namespace vigil::cli {

void WritePausedMemory(json::Writer& w, const lifecycle::PausedMemory& memory) {
  w.BeginObject();
  w.Key("resident");
  w.Uint(memory.resident);
  w.Key("swapped");
  w.Uint(memory.swapped);
  if (memory.release) {
    w.Key("release");
    w.BeginObject();
    w.Key("before");
    w.Uint(memory.release->before);
    w.Key("after");
    w.Uint(memory.release->after);
    w.EndObject();
  }
  if (!memory.note.empty()) {
    w.Key("note");
    w.String(memory.note);
  }
  w.EndObject();
}

void WriteContainerView(json::Writer& w, const lifecycle::ContainerView& view, bool detailed,
                        const lifecycle::PausedMemory* paused_memory) {
  const runtime::ContainerRecord& r = view.record;
  w.BeginObject();
  w.Key("ociVersion");
  w.String(config::kOciVersion);
  w.Key("id");
  w.String(r.id);
  w.Key("pid");
  w.Int(view.pid);
  w.Key("status");
  w.String(config::NameOf(view.status));
  w.Key("bundle");
  w.String(r.bundle);
  w.Key("rootfs");
  w.String(r.rootfs);
  w.Key("created");
  w.String(r.created);
  w.Key("owner");
  w.String(r.owner);
  if (detailed) {
    w.Key("annotations");
    w.BeginObject();
    for (const auto& [key, value] : r.annotations) {
      w.Key(key);
      w.String(value);
    }
    w.EndObject();
    // Recorded by create as DumpPolicy wrote it; a record without one (or
    // one this build cannot read) shows none.
    if (Result<config::Policy> policy = config::ParsePolicy(r.policy.empty() ? "x" : r.policy)) {
      w.Key("policy");
      config::WritePolicy(w, *policy);
    }
    w.Key("platform");
    w.String(sentry::PlatformName(r.platform));
    if (paused_memory != nullptr) {
      w.Key("memory");
      WritePausedMemory(w, *paused_memory);
    }
  }
  w.EndObject();
}

}  // namespace vigil::cli
