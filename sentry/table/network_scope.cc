#include "sentry/table/network_scope.h"

#include <algorithm>

namespace vigil::sentry {

bool MayHoldNetworkAdmin(const config::Process& process) {
  if (!process.capabilities) return true;
  const std::vector<std::string>& bounding = process.capabilities->bounding;
  return std::find(bounding.begin(), bounding.end(), "CAP_NET_ADMIN") != bounding.end();
}

FilterOptions WithNetlinkReadOnly(FilterOptions options, const config::Process& process) {
  options.mediate_network = options.mediate_network || MayHoldNetworkAdmin(process);
  return options;
}

}  // namespace vigil::sentry
