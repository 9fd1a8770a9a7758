#include "shim/audit_observer.h"

#include <charconv>
#include <filesystem>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "base/time.h"
#include "sentry/table/syscall_table.h"

namespace vigil::shim {
namespace {

// The thread group of `tid` (its "Tgid:" in /proc/TID/status), or the tid.
pid_t ThreadGroupOf(pid_t tid) {
  Result<std::string> status = ReadFile(StrCat("/proc/", tid, "/status"), 4096);
  if (!status) return tid;
  std::size_t at = status->find("\nTgid:");
  if (at == std::string::npos) return tid;
  std::string_view rest = std::string_view(*status).substr(at + 6);
  rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
  pid_t tgid = tid;
  std::from_chars(rest.data(), rest.data() + rest.size(), tgid);
  return tgid;
}

std::string ExecutableOf(pid_t tid) {
  std::error_code ec;
  std::string exe = std::filesystem::read_symlink(StrCat("/proc/", tid, "/exe"), ec).string();
  return ec ? "" : exe;
}

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
  sentry::audit::Record record{
      .time = Rfc3339NanoNow(),
      .container_id = container_id_,
      .pid = ThreadGroupOf(decision.event.tid),
      .tid = decision.event.tid,
      .exe = ExecutableOf(decision.event.tid),
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
