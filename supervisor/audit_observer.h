// Turns the sentry's decisions into audit records (sentry/audit/), at the
// level the policy asks for, floods of one kind collapsed into counts
// (sentry/audit/repeats.h). Runs on the supervisor's loop after the
// workload has its answer; it only fills a slot of the writer's ring, and
// the writer thread encodes and writes.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/policy/policy.h"
#include "sentry/audit/repeats.h"
#include "sentry/audit/writer.h"
#include "sentry/names/resolver.h"
#include "sentry/serve/mediator.h"

namespace vigil::supervisor {

class AuditObserver {
 public:
  AuditObserver(std::unique_ptr<sentry::audit::AuditWriter> writer, std::string container_id,
                config::AuditLevel level)
      : writer_(std::move(writer)), container_id_(std::move(container_id)), level_(level) {}

  void Record(const sentry::DecisionRecord& decision);
  // What happened to the container rather than a call it made (an event
  // record: "timeout"), for its init `init_pid`; written at every level
  // but "off", and never collapsed.
  void RecordEvent(std::string_view event, pid_t init_pid, sentry::audit::Decision decision,
                   std::vector<sentry::audit::Arg> details);
  // A "resolve" event per DNS name of the egress allow-list that create
  // resolved, with its addresses (lifecycle/egress_hosts.h):
  // the audit says where each allowed address came from.
  void RecordEgressHosts(const config::Policy& policy, pid_t init_pid);
  // A "dns" record of a query the sandbox's resolver answered
  // (sentry/names/resolver.h) for the container of `init_pid`: the name,
  // its type, the answer's code and addresses; "deny" for a name the policy
  // does not allow. Collapsed as repeated calls are.
  void RecordQuery(const sentry::names::Resolution& resolution, pid_t init_pid);
  // From now on the calling thread's warnings and errors (the supervisor's
  // loop: a reply it could not send, its confinement failing, a removal
  // that failed) are "supervisor" events too, so a platform reads one
  // place. Not another thread's: the audit writer's own are about the log
  // and cannot go into it. The observer must outlive the process's logging.
  void RecordLogOfThisThread(pid_t init_pid);
  // Writes the counts of repeats whose window is over; the supervisor
  // calls it every kSweepPeriod, so a flood that stops is summed up soon.
  void Sweep();
  static constexpr std::chrono::milliseconds kSweepPeriod{1000};
  // Writes every count, then returns once everything recorded so far is
  // written (errors are logged, the lines kept for later).
  void Flush();

 private:
  void WriteDue();

  std::unique_ptr<sentry::audit::AuditWriter> writer_;
  sentry::audit::RepeatLimiter repeats_;
  std::string container_id_;
  config::AuditLevel level_;
};

}  // namespace vigil::supervisor
