#include "config/oci/state.h"

#include "config/oci/codec.h"

namespace vigil::config {
namespace {

constexpr Field<State> kStateFields[] = {
    Required<&State::oci_version>("ociVersion"), Required<&State::id>("id"),
    Required<&State::status>("status"),          Bind<&State::pid>("pid"),
    Required<&State::bundle>("bundle"),          Bind<&State::annotations>("annotations"),
};

}  // namespace

Result<State> ParseState(std::string_view text) {
  ASSIGN_OR_RETURN(json::Document doc, json::Document::Parse(text));
  State state;
  RETURN_IF_ERROR(DecodeObject<State>(doc.root(), JsonPath(), kStateFields, state));
  // kill(-1, ...) would signal every process: a negative pid is never valid.
  if (state.pid < 0) return FailAt(JsonPath().Key("pid"), "must not be negative");
  return state;
}

std::string DumpState(const State& state) {
  json::Writer w;
  EncodeObject<State>(w, kStateFields, state);
  return w.Take();
}

std::string DumpContainerProcessState(const ContainerProcessState& process_state) {
  json::Writer w;
  w.BeginObject();
  w.StringMember("ociVersion", process_state.oci_version);
  w.Key("fds");
  w.BeginArray();
  w.String("seccompFd");
  w.EndArray();
  w.IntMember("pid", process_state.pid);
  w.StringMember("metadata", process_state.metadata);
  w.Key("state");
  EncodeObject<State>(w, kStateFields, process_state.state);
  w.EndObject();
  return w.Take();
}

}  // namespace vigil::config
