#include "shim/audit_observer.h"

#include "base/log.h"
#include "base/strings.h"
#include "base/time.h"
#include "sentry/table/syscall_table.h"

namespace vigil::shim {
namespace {

bool Wanted(config::AuditLevel level, sentry::Decision decision) {
  switch (level) {
    case config::AuditLevel::kOff:
      return false;
    case config::AuditLevel::kDenied:
      return decision == sentry::Decision::kDeny || decision == sentry::Decision::kKill;
    case config::AuditLevel::kAll:
      return true;
  }
  return true;
}

}  // namespace

void AuditObserver::Record(const sentry::DecisionRecord& decision) {
  if (!Wanted(level_, decision.verdict.decision)) return;
  // Filled in place: record_'s strings and args keep their capacity from
  // one decision to the next, so a record costs no allocation.
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  FormatRfc3339Nano(now, record_.time);
  sentry::ProcessIdentity process = decision.identity();
  record_.pid = process.pid;
  record_.tid = decision.event.tid;
  record_.exe = process.executable;
  if (const sentry::SyscallEntry* entry = sentry::FindSyscall(decision.event.number)) {
    record_.syscall = entry->name;
  } else {
    record_.syscall = StrCat(decision.event.number);
  }
  record_.args.resize(decision.args.size());
  for (std::size_t i = 0; i < decision.args.size(); ++i) {
    record_.args[i].name = decision.args[i].first;
    record_.args[i].value = decision.args[i].second;
  }
  record_.decision = decision.verdict.decision;
  record_.error = decision.verdict.error;
  record_.latency_us = static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(decision.latency).count());
  log_.Append(record_);
  if (log_.WantsFlush()) Flush();
}

void AuditObserver::Flush() {
  if (Result<void> flushed = log_.Flush(); !flushed) {
    log::Warning(StrCat("audit log ", log_.path(), ": ", flushed.error().message));
  }
}

}  // namespace vigil::shim
