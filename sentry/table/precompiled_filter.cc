#include "sentry/table/precompiled_filter.h"

#include <seccomp.h>

#include "sentry/table/sentry_filter.h"

namespace vigil::sentry {

std::optional<seccomp::CompiledFilter> PrecompiledSentryFilter(const FilterOptions& options) {
  const PrecompiledWith& made_with = generated::kSentryProgramsWith;
  const scmp_version* version = seccomp_version();
  if (version == nullptr || version->major != made_with.major ||
      version->minor != made_with.minor || version->micro != made_with.micro ||
      seccomp_api_get() != made_with.api_level) {
    return std::nullopt;
  }
  const PrecompiledProgram& program = generated::kSentryPrograms[VariantOf(options)];
  if (program.code == nullptr) return std::nullopt;
  return seccomp::CompiledFilter{.program = {program.code, program.code + program.size},
                                 .flags = program.flags,
                                 .has_notify = program.has_notify};
}

Result<seccomp::CompiledFilter> SentryFilterFor(const FilterOptions& options) {
  if (std::optional<seccomp::CompiledFilter> built = PrecompiledSentryFilter(options)) {
    return std::move(*built);
  }
  return BuildSentryFilter(options);
}

}  // namespace vigil::sentry
