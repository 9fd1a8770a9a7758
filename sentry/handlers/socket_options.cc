// setsockopt at the IP and IPv6 levels, under a policy that mediates the
// network: the options that send a packet to another address first
// (routing_options.h) are refused where the policy has an egress
// allow-list; every other option, and every option elsewhere, is the
// kernel's to set. Decided on registers alone (the level and the name),
// so CONTINUE is exact (docs/design.md, rule 1).
#include <cerrno>
#include <string>

#include "config/policy/policy.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/routing_options.h"

namespace vigil::sentry {

Result<Verdict> HandleSetsockopt(HandlerContext& context) {
  const auto& args = context.event.args;
  const auto level = static_cast<int>(args[1]);
  const auto name = static_cast<int>(args[2]);
  if (!RoutesElsewhere(level, name)) return Verdict::Continue();
  context.AuditNumber("level", level);
  context.AuditNumber("option", name);
  if (!context.sandbox.policy->egress_default_deny) return Verdict::Continue();
  return Verdict::Fail(EPERM, Decision::kDeny);
}

}  // namespace vigil::sentry
