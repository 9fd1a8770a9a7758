#include "lifecycle/lifetime.h"

#include "base/strings.h"
#include "base/units.h"
#include "config/oci/vigil_annotations.h"

namespace vigil::lifecycle {
namespace {

using std::chrono::milliseconds;

Result<milliseconds> Duration(std::string_view what, std::string_view text, bool zero_allowed) {
  ASSIGN_OR_RETURN(const std::chrono::nanoseconds parsed, ParseGoDuration(what, text));
  const auto rounded = std::chrono::ceil<milliseconds>(parsed);
  if (rounded.count() < 0 || (rounded.count() == 0 && !zero_allowed)) {
    return Fail(StrCat(what, ": ", Quote(text), " is not a duration ",
                       zero_allowed ? "of 0 or more" : "above 0"));
  }
  return rounded;
}

}  // namespace

Result<Lifetime> ResolveLifetime(const config::Spec& spec, const std::string& flag_timeout,
                                 const std::string& global_timeout) {
  Lifetime lifetime;
  std::string operators;  // the operator's timeout as given, for the error below
  for (const std::string& given : {flag_timeout, global_timeout}) {
    if (given.empty()) continue;
    ASSIGN_OR_RETURN(const milliseconds timeout, Duration("--timeout", given, false));
    if (lifetime.timeout.count() == 0 || timeout < lifetime.timeout) {
      lifetime.timeout = timeout;
      operators = given;
    }
  }
  if (const std::string* asked = spec.FindAnnotation(config::kTimeoutAnnotation)) {
    const std::string what = StrCat("annotation ", config::kTimeoutAnnotation);
    ASSIGN_OR_RETURN(const milliseconds timeout, Duration(what, *asked, false));
    if (lifetime.timeout.count() != 0 && timeout > lifetime.timeout) {
      return Fail(StrCat(what, ": ", Quote(*asked), " is longer than the runtime's --timeout ",
                         Quote(operators)));
    }
    lifetime.timeout = timeout;
  }
  if (const std::string* grace = spec.FindAnnotation(config::kTimeoutGraceAnnotation)) {
    ASSIGN_OR_RETURN(
        lifetime.grace,
        Duration(StrCat("annotation ", config::kTimeoutGraceAnnotation), *grace, true));
  }
  return lifetime;
}

}  // namespace vigil::lifecycle
