#include "cli/container_json.h"

#include "config/oci/spec.h"
#include "config/policy/policy.h"

namespace vigil::cli {

void WritePausedMemory(json::Writer& w, const lifecycle::PausedMemory& memory) {
  w.BeginObject();
  w.UintMember("resident", memory.resident);
  w.UintMember("swapped", memory.swapped);
  if (memory.release) {
    w.Key("release");
    w.BeginObject();
    w.UintMember("before", memory.release->before);
    w.UintMember("after", memory.release->after);
    w.EndObject();
  }
  if (!memory.note.empty()) {
    w.StringMember("note", memory.note);
  }
  w.EndObject();
}

void WriteContainerView(json::Writer& w, const lifecycle::ContainerView& view, bool detailed,
                        const lifecycle::PausedMemory* paused_memory) {
  const runtime::ContainerRecord& r = view.record;
  w.BeginObject();
  w.StringMember("ociVersion", config::kOciVersion);
  w.StringMember("id", r.id);
  w.IntMember("pid", view.pid);
  w.StringMember("status", config::NameOf(view.status));
  w.StringMember("bundle", r.bundle);
  w.StringMember("rootfs", r.rootfs);
  w.StringMember("created", r.created);
  w.StringMember("owner", r.owner);
  if (detailed) {
    w.Key("annotations");
    w.BeginObject();
    for (const auto& [key, value] : r.annotations) {
      w.StringMember(key, value);
    }
    w.EndObject();
    // Recorded by create as DumpPolicy wrote it; a record without one (or
    // one this build cannot read) shows none.
    if (Result<config::Policy> policy = config::ParsePolicy(r.policy.empty() ? "x" : r.policy)) {
      w.Key("policy");
      config::WritePolicy(w, *policy);
    }
    w.StringMember("platform", sentry::PlatformName(r.platform));
    if (paused_memory != nullptr) {
      w.Key("memory");
      WritePausedMemory(w, *paused_memory);
    }
  }
  w.EndObject();
}

}  // namespace vigil::cli
