// A handler called as the sentry's loop calls it: the workload's credentials
// it leaves behind for the next notification (ActingAs) are given back
// before the test's own code runs, as the loop's prologue gives them back
// before anything else.
#pragma once

#include "sentry/core/acting_as.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {

inline Verdict HandleAsLoop(Handler handler, HandlerContext& context) {
  Verdict verdict = Handle(handler, context);
  ActingAs::AsSentryOrExit();
  return verdict;
}

}  // namespace vigil::sentry
