#include "runtime/policy/sentry_filters.h"

#include "sentry/table/precompiled_filter.h"
#include "sentry/table/sentry_filter.h"

namespace vigil::runtime {

Result<std::unique_ptr<SentryFilters>> SentryFilters::Compile(
    const sentry::FilterOptions& options) {
  auto filters = std::make_unique<SentryFilters>();
  ASSIGN_OR_RETURN(filters->sentry_, sentry::SentryFilterFor(options));
  if (options.traced) {
    ASSIGN_OR_RETURN(filters->channel_guard_, sentry::BuildChannelGuardFilter());
    filters->ptrace_ = {.channel_fd = sentry::kDescriptorChannelFd,
                        .channel_guard = &*filters->channel_guard_};
  }
  return filters;
}

}  // namespace vigil::runtime
