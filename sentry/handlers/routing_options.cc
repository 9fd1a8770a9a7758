#include "sentry/handlers/routing_options.h"

#include <netinet/in.h>
#include <sys/socket.h>

namespace vigil::sentry {
namespace {

bool RoutingControl(int level, int type) {
  return (level == SOL_IP && type == IP_RETOPTS) ||
         (level == SOL_IPV6 && (type == IPV6_RTHDR || type == IPV6_2292RTHDR));
}

}  // namespace

bool RoutesElsewhere(int level, int name) {
  return (level == SOL_IP && name == IP_OPTIONS) ||
         (level == SOL_IPV6 && (name == IPV6_RTHDR || name == IPV6_2292PKTOPTIONS));
}

bool ControlRoutesElsewhere(const std::vector<char>& control) {
  if (control.empty()) return false;
  msghdr message{};
  message.msg_control = const_cast<char*>(control.data());
  message.msg_controllen = control.size();
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_len < sizeof(cmsghdr)) return false;
    if (RoutingControl(header->cmsg_level, header->cmsg_type)) return true;
  }
  return false;
}

}  // namespace vigil::sentry
