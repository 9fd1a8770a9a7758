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
  const sentry::SyscallEntry* entry = sentry::FindSyscall(decision.event.number);
  sentry::ProcessIdentity process = decision.identity();
  sentry::audit::Record record{
      .time = Rfc3339NanoNow(),
      .container_id = container_id_,
      .pid = process.pid,
      .tid = decision.event.tid,
      .exe = std::move(process.executable),
      .syscall = entry != nullptr ? std::string(entry->name) : StrCat(decision.event.number),
      .decision = decision.verdict.decision,
      .error = decision.verdict.error,
      .latency_us = static_cast<std::uint32_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(decision.latency).count()),
  };
  for (const auto& [name, value] : decision.args) record.args.push_back({.name = name, .value = value});
  log_.Append(record);
  if (log_.WantsFlush()) Flush();
}

void AuditObserver::Flush() {
  if (Result<void> flushed = log_.Flush(); !flushed) {
    log::Warning(StrCat("audit log ", log_.path(), ": ", flushed.error().message));
  }
}

}  // namespace vigil::shim
