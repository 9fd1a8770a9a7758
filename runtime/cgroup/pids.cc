// linux.resources.pids: pids.max on v1 and v2; a limit <= 0 is "max". And
// how often the limit refused a fork.
#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {

Result<void> ApplyPids(const Knobs& knobs, const config::Resources& r) {
  if (!r.pids) return {};
  constexpr std::string_view kLimit = "linux.resources.pids.limit";
  ASSIGN_OR_RETURN(const Placement* p, knobs.Require("pids", kLimit));
  std::string value = r.pids->limit > 0 ? StrCat(r.pids->limit) : "max";
  return knobs.Write(*p, "pids.max", value, kLimit);
}

Result<std::uint64_t> PidsLimitHitCount(const Knobs& knobs) {
  ASSIGN_OR_RETURN(const Placement* p, knobs.Require("pids", "the pids limit's refusals"));
  // pids.events' "max": forks refused at pids.max (v1 and v2 alike).
  ASSIGN_OR_RETURN(const auto keyed, knobs.ReadKeyed(*p, "pids.events"));
  const auto hits = keyed.find("max");
  return hits == keyed.end() ? 0 : hits->second;
}

}  // namespace vigil::runtime::cgroup
