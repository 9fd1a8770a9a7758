// Turns the sentry's decisions into audit records (sentry/audit/), at the
// level the policy asks for. Runs on the supervisor's loop after the
// workload has its answer; it only fills a slot of the writer's ring, and
// the writer thread encodes and writes.
#pragma once

#include <memory>
#include <string>

#include "config/policy/policy.h"
#include "sentry/audit/writer.h"
#include "sentry/serve/mediator.h"

namespace vigil::shim {

class AuditObserver {
 public:
  AuditObserver(std::unique_ptr<sentry::audit::AuditWriter> writer, std::string container_id,
                config::AuditLevel level)
      : writer_(std::move(writer)), container_id_(std::move(container_id)), level_(level) {}

  void Record(const sentry::DecisionRecord& decision);
  // Returns once everything recorded so far is written (errors are logged,
  // the lines kept for later).
  void Flush() { writer_->Flush(); }

 private:
  std::unique_ptr<sentry::audit::AuditWriter> writer_;
  std::string container_id_;
  config::AuditLevel level_;
};

}  // namespace vigil::shim
