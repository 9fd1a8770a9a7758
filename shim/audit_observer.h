// Turns the sentry's decisions into audit records (sentry/audit/), at the
// level the policy asks for. Runs on the supervisor's loop after the
// workload has its answer; it only encodes into memory, and the loop
// flushes on a timer.
#pragma once

#include <string>

#include "config/policy/policy.h"
#include "sentry/audit/log.h"
#include "sentry/serve/mediator.h"

namespace vigil::shim {

class AuditObserver {
 public:
  AuditObserver(sentry::audit::AuditLog log, std::string container_id,
                config::AuditLevel level)
      : log_(std::move(log)), level_(level) {
    record_.container_id = std::move(container_id);
  }

  void Record(const sentry::DecisionRecord& decision);
  // Writes out what is buffered; errors are logged, records kept for later.
  void Flush();

 private:
  sentry::audit::AuditLog log_;
  config::AuditLevel level_;
  sentry::audit::Record record_;  // the last one written, reused
};

}  // namespace vigil::shim
