#include "runtime/container/record.h"

#include "config/oci/codec.h"
#include "config/oci/spec.h"

namespace vigil::runtime {
namespace {

using config::Bind;
using config::Field;
using config::Required;

constexpr Field<ContainerRecord> kRecordFields[] = {
    Required<&ContainerRecord::id>("id"),
    Required<&ContainerRecord::bundle>("bundle"),
    Bind<&ContainerRecord::rootfs>("rootfs"),
    Bind<&ContainerRecord::created>("created"),
    Bind<&ContainerRecord::owner>("owner"),
    Bind<&ContainerRecord::annotations>("annotations"),
    Required<&ContainerRecord::status>("status"),
    Bind<&ContainerRecord::supervisor_pid>("supervisorPid"),
    Bind<&ContainerRecord::supervisor_start>("supervisorStart"),
    Bind<&ContainerRecord::init_pid>("initPid"),
    Bind<&ContainerRecord::init_start>("initStart"),
    Bind<&ContainerRecord::cgroup_paths>("cgroupPaths"),
    Bind<&ContainerRecord::audit_path>("auditPath"),
    Bind<&ContainerRecord::audit_max_bytes>("auditMaxBytes"),
    Bind<&ContainerRecord::audit_max_files>("auditMaxFiles"),
    Bind<&ContainerRecord::policy>("policy"),
    Bind<&ContainerRecord::compiled>("compiled"),
    Bind<&ContainerRecord::platform>("platform"),
    Bind<&ContainerRecord::timeout_ms>("timeoutMs"),
    Bind<&ContainerRecord::timeout_grace_ms>("timeoutGraceMs"),
    Bind<&ContainerRecord::engine_scratch>("engineScratch"),
};

}  // namespace

config::State HookState(const ContainerRecord& record, config::ContainerStatus status) {
  return config::State{.oci_version = std::string(config::kOciVersion),
                       .id = record.id,
                       .status = status,
                       .pid = status == config::ContainerStatus::kStopped ? 0 : record.init_pid,
                       .bundle = record.bundle,
                       .annotations = record.annotations};
}

Result<ContainerRecord> ParseRecord(std::string_view text) {
  ASSIGN_OR_RETURN(json::Document doc, json::Document::Parse(text));
  ContainerRecord record;
  RETURN_IF_ERROR(
      config::DecodeObject<ContainerRecord>(doc.root(), config::JsonPath(), kRecordFields, record));
  return record;
}

std::string DumpRecord(const ContainerRecord& record) {
  json::Writer w;
  config::EncodeObject<ContainerRecord>(w, kRecordFields, record);
  return w.Take();
}

}  // namespace vigil::runtime
