// config.json as a hostile bundle could write it: ParseSpec must refuse or
// accept without crashing, Validate must cope with anything ParseSpec
// accepts, and the canonical form must read back as the same Spec.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/oci/config.h"
#include "config/oci/validate.h"
#include "tests/fuzz/check.h"

namespace {

using vigil::config::DumpSpec;
using vigil::config::ParseSpec;
using vigil::config::Spec;
using vigil::fuzz::CheckOneLine;
using vigil::fuzz::Die;
using Style = vigil::json::Writer::Style;

void CheckRoundTrip(const Spec& spec, Style style) {
  std::string dumped = DumpSpec(spec, style);
  vigil::Result<Spec> again = ParseSpec(dumped);
  if (!again) Die("the dump does not parse", again.error().message + "\n" + dumped);
  if (!(*again == spec)) {
    Die("the dump parses as another Spec",
        "dump:\n" + dumped + "\nre-dump:\n" + DumpSpec(*again, style));
  }
  // The canonical form is a fixed point.
  if (DumpSpec(*again, style) != dumped) Die("dumping twice differs", dumped);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  vigil::Result<Spec> spec = ParseSpec(text);
  if (!spec) {
    CheckOneLine(spec.error());
    return 0;
  }
  if (vigil::Result<void> valid = Validate(*spec); !valid) CheckOneLine(valid.error());
  CheckRoundTrip(*spec, Style::kCompact);
  CheckRoundTrip(*spec, Style::kPretty);
  return 0;
}
