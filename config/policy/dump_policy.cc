// DumpPolicy: the whole policy as JSON, from the same field tables that
// ParsePolicy decodes with.
#include "base/json/json_writer.h"
#include "config/policy/policy.h"
#include "config/policy/policy_codec.h"

namespace vigil::config {

std::string DumpPolicy(const Policy& policy) {
  json::Writer w(json::Writer::Style::kPretty);
  WritePolicy(w, policy);
  return w.Take();
}

void WritePolicy(json::Writer& w, const Policy& policy) {
  EncodeObject<Policy>(w, PolicyFields(), policy);
}

}  // namespace vigil::config
