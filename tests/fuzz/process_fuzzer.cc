// The process document of `vigil exec --process FILE`, which containerd and
// podman write: ParseProcess (parse and validate) must refuse or accept
// without crashing, and what it accepts must encode and read back the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/json/json_writer.h"
#include "config/oci/config.h"
#include "config/oci/sections.h"
#include "tests/fuzz/check.h"

namespace {

using vigil::config::Process;
using vigil::fuzz::Die;

std::string Dump(const Process& process) {
  vigil::json::Writer w;
  vigil::config::Encode(w, process);
  return w.Take();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  vigil::Result<Process> process = vigil::config::ParseProcess(text);
  if (!process) {
    vigil::fuzz::CheckOneLine(process.error());
    return 0;
  }
  std::string dumped = Dump(*process);
  vigil::Result<Process> again = vigil::config::ParseProcess(dumped);
  if (!again) Die("the dump does not parse", again.error().message + "\n" + dumped);
  if (!(*again == *process)) {
    Die("the dump parses as another Process", "dump:\n" + dumped + "\nre-dump:\n" + Dump(*again));
  }
  if (Dump(*again) != dumped) Die("dumping twice differs", dumped);
  return 0;
}
