// The OCI state document, which hooks and callers hand back to us: ParseState
// must refuse or accept without crashing, and DumpState must read back as the
// same State.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/oci/state.h"
#include "tests/fuzz/check.h"

namespace {

using vigil::fuzz::Die;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using vigil::config::State;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  vigil::Result<State> state = vigil::config::ParseState(text);
  if (!state) {
    vigil::fuzz::CheckOneLine(state.error());
    return 0;
  }
  std::string dumped = vigil::config::DumpState(*state);
  vigil::Result<State> again = vigil::config::ParseState(dumped);
  if (!again) Die("the dump does not parse", again.error().message + "\n" + dumped);
  if (!(*again == *state)) {
    Die("the dump parses as another State",
        "dump:\n" + dumped + "\nre-dump:\n" + vigil::config::DumpState(*again));
  }
  if (vigil::config::DumpState(*again) != dumped) Die("dumping twice differs", dumped);
  return 0;
}
