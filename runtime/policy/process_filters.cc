#include "runtime/policy/process_filters.h"

#include <string>
#include <utility>

#include "base/log.h"
#include "base/strings.h"
#include "sentry/table/precompiled_filter.h"
#include "sentry/table/sentry_filter.h"

namespace vigil::runtime {

Result<std::optional<seccomp::CompiledFilter>> CompileProfile(const config::Spec& spec) {
  if (!spec.linux_spec || !spec.linux_spec->seccomp) return std::nullopt;
  const config::Seccomp& profile = *spec.linux_spec->seccomp;
  ASSIGN_OR_RETURN(seccomp::CompiledFilter filter, seccomp::CompileSeccomp(profile));
  if (!filter.skipped_names.empty()) {
    std::string names;
    for (const std::string& name : filter.skipped_names)
      names += (names.empty() ? "" : ", ") + name;
    log::Warning(StrCat("linux.seccomp: syscalls unknown to libseccomp left out: ", names));
  }
  return filter;
}

Result<std::unique_ptr<ProcessFilters>> ProcessFilters::Compile(
    const config::Spec& spec, const sentry::FilterOptions& sentry,
    std::vector<config::LandlockRuleset> landlock) {
  auto filters = std::make_unique<ProcessFilters>();
  ASSIGN_OR_RETURN(filters->profile_, CompileProfile(spec));
  ASSIGN_OR_RETURN(filters->sentry_, sentry::SentryFilterFor(sentry));
  if (sentry.traced) {
    ASSIGN_OR_RETURN(filters->channel_guard_, sentry::BuildChannelGuardFilter());
    filters->ptrace_ = {.channel_fd = sentry::kDescriptorChannelFd,
                        .channel_guard = &*filters->channel_guard_};
  }
  filters->landlock_ = std::move(landlock);
  return filters;
}

LaunchOptions ProcessFilters::Launch(int preserve_fds) const {
  return LaunchOptions{.preserve_fds = preserve_fds,
                       .seccomp = profile_ ? &*profile_ : nullptr,
                       .sentry = &sentry_,
                       .ptrace = channel_guard_ ? &ptrace_ : nullptr,
                       .landlock = &landlock_};
}

}  // namespace vigil::runtime
