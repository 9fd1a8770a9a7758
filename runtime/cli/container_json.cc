#include "runtime/cli/container_json.h"

#include "config/oci/spec.h"

namespace vigil::cli {

void WriteContainerView(json::Writer& w, const runtime::ContainerView& view,
                        bool with_annotations) {
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
  if (with_annotations) {
    w.Key("annotations");
    w.BeginObject();
    for (const auto& [key, value] : r.annotations) {
      w.Key(key);
      w.String(value);
    }
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace vigil::cli
