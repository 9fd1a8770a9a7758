// linux.seccomp as a hostile bundle could write it, through the steps
// `create` takes: ParseSpec of a config.json holding it, Validate, then
// CompileSeccomp, which builds the BPF program with libseccomp. Each step
// must refuse in one line or succeed; a compiled program must be one the
// kernel could take. The filter is never loaded.
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/oci/config.h"
#include "config/oci/validate.h"
#include "seccomp/profile.h"
#include "tests/fuzz/check.h"

namespace {

using vigil::fuzz::CheckOneLine;
using vigil::fuzz::Die;

bool Named(const vigil::config::Seccomp& profile, const std::string& name) {
  return std::any_of(profile.syscalls.begin(), profile.syscalls.end(), [&](const auto& rule) {
    return std::find(rule.names.begin(), rule.names.end(), name) != rule.names.end();
  });
}

void CheckCompiled(const vigil::config::Seccomp& profile,
                   const vigil::seccomp::CompiledFilter& filter) {
  if (filter.program.empty() || filter.program.size() > BPF_MAXINSNS) {
    Die("a program the kernel cannot take", std::to_string(filter.program.size()));
  }
  // Classic BPF ends every path in a return; the last instruction must be one.
  if (BPF_CLASS(filter.program.back().code) != BPF_RET) Die("the program does not end in RET", "");
  if ((filter.flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) != 0) {
    Die("NEW_LISTENER is seccomp::LoadSeccomp's to add", "");
  }
  for (const std::string& name : filter.skipped_names) {
    if (!Named(profile, name)) Die("skipped a name the profile does not have", name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The section inside the smallest config.json ParseSpec and Validate take.
  std::string config =
      R"({"ociVersion": "1.2.0", "root": {"path": "rootfs"}, "linux": {"seccomp": )";
  config.append(reinterpret_cast<const char*>(data), size);
  config += "}}";
  vigil::Result<vigil::config::Spec> spec = vigil::config::ParseSpec(config);
  if (!spec) {
    CheckOneLine(spec.error());
    return 0;
  }
  if (vigil::Result<void> valid = Validate(*spec); !valid) {
    CheckOneLine(valid.error());
    return 0;
  }
  if (!spec->linux_spec || !spec->linux_spec->seccomp) return 0;
  const vigil::config::Seccomp& profile = *spec->linux_spec->seccomp;
  vigil::Result<vigil::seccomp::CompiledFilter> filter = vigil::seccomp::CompileSeccomp(profile);
  if (!filter) {
    CheckOneLine(filter.error());
    return 0;
  }
  CheckCompiled(profile, *filter);
  return 0;
}
