#include "supervisor/audit_observer.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "base/strings.h"
#include "base/time.h"
#include "config/policy/cidr.h"
#include "sentry/table/syscall_table.h"

namespace vigil::supervisor {
namespace {

bool Wanted(config::AuditLevel level, const sentry::DecisionRecord& record) {
  const sentry::Decision decision = record.verdict.decision;
  const bool refused = decision == sentry::Decision::kDeny || decision == sentry::Decision::kKill;
  switch (level) {
    case config::AuditLevel::kOff:
      return false;
    case config::AuditLevel::kDenied:
      return refused;
    case config::AuditLevel::kActions:
      return refused || !sentry::OnlyLooks(record.event.number, record.event.args);
    case config::AuditLevel::kAll:
      return true;
  }
  return true;
}

}  // namespace

void AuditObserver::Record(const sentry::DecisionRecord& decision) {
  if (!Wanted(level_, decision)) return;
  sentry::audit::Record* record = writer_->Claim();
  if (record == nullptr) return;  // the ring is full: dropped, and counted
  // Filled in place: a slot's strings and args keep their capacity from one
  // decision to the next, so a record costs no allocation.
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  FormatRfc3339Nano(now, record->time);
  record->container_id = container_id_;
  record->pid = decision.identity(record->exe);
  record->tid = decision.event.tid;
  record->event.clear();
  if (const sentry::SyscallEntry* entry = sentry::FindSyscall(decision.event.number)) {
    record->syscall = entry->name;
  } else {
    record->syscall = StrCat(decision.event.number);
  }
  record->args.resize(decision.args.size());
  for (std::size_t i = 0; i < decision.args.size(); ++i) {
    record->args[i].name = decision.args[i].name;
    record->args[i].value = decision.args[i].value;
    record->args[i].is_number = decision.args[i].is_number;
  }
  record->decision = decision.verdict.decision;
  record->error = decision.verdict.error;
  record->left_to_kernel = decision.verdict.kind == sentry::Verdict::Kind::kContinue;
  record->latency_us = static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(decision.latency).count());
  record->suppressed = 0;
  if (!repeats_.Admit(*record, sentry::audit::RepeatLimiter::Clock::now())) {
    writer_->Abandon();
    return;
  }
  writer_->Commit();
  WriteDue();
}

void AuditObserver::RecordEvent(std::string_view event, pid_t init_pid,
                                sentry::audit::Decision decision,
                                std::vector<sentry::audit::Arg> details) {
  if (level_ == config::AuditLevel::kOff) return;
  sentry::audit::Record* record = writer_->Claim();
  if (record == nullptr) return;  // the ring is full: dropped, and counted
  *record = sentry::audit::Record{.time = Rfc3339NanoNow(),
                                  .container_id = container_id_,
                                  .pid = init_pid,
                                  .tid = init_pid,
                                  .event = std::string(event),
                                  .args = std::move(details),
                                  .decision = decision};
  writer_->Commit();
}

void AuditObserver::RecordEgressHosts(const config::Policy& policy, pid_t init_pid) {
  std::vector<std::pair<std::string, std::string>> hosts;  // name, addresses
  for (const config::EgressRule& rule : policy.egress) {
    // A name the sandbox's resolver answers has no addresses from create.
    if (rule.host.empty() || rule.cidr.family == AF_UNSPEC) continue;
    auto it = std::find_if(hosts.begin(), hosts.end(),
                           [&](const auto& host) { return host.first == rule.host; });
    if (it == hosts.end()) it = hosts.insert(hosts.end(), {rule.host, ""});
    it->second += StrCat(it->second.empty() ? "" : ",", config::FormatCidr(rule.cidr));
  }
  for (auto& [host, addresses] : hosts) {
    RecordEvent("resolve", init_pid, sentry::audit::Decision::kAllow,
                {{"host", host}, {"addresses", addresses}});
  }
}

void AuditObserver::RecordQuery(const sentry::names::Resolution& resolution, pid_t init_pid) {
  const bool allowed = resolution.allowed;
  if (level_ == config::AuditLevel::kOff || (level_ == config::AuditLevel::kDenied && allowed)) {
    return;
  }
  sentry::audit::Record* record = writer_->Claim();
  if (record == nullptr) return;  // the ring is full: dropped, and counted
  std::vector<sentry::audit::Arg> args = {
      {"name", resolution.name},
      {"type", std::string(sentry::names::TypeName(resolution.type))},
      {"answer", std::string(sentry::names::RcodeName(resolution.rcode))}};
  std::string addresses;
  for (const sentry::names::LearnedAddress& address : resolution.addresses) {
    char text[INET6_ADDRSTRLEN] = {};
    ::inet_ntop(address.family, address.address.data(), text, sizeof text);
    addresses += StrCat(addresses.empty() ? "" : ",", text);
  }
  if (!addresses.empty()) args.push_back({"addresses", std::move(addresses)});
  *record = sentry::audit::Record{
      .time = Rfc3339NanoNow(),
      .container_id = container_id_,
      .pid = init_pid,
      .tid = init_pid,
      .event = "dns",
      .args = std::move(args),
      .decision = allowed ? sentry::audit::Decision::kAllow : sentry::audit::Decision::kDeny};
  // A loop asking one name is one record a second and a count.
  if (!repeats_.Admit(*record, sentry::audit::RepeatLimiter::Clock::now())) {
    writer_->Abandon();
    return;
  }
  writer_->Commit();
  WriteDue();
}

void AuditObserver::RecordLogOfThisThread(pid_t init_pid) {
  log::SetObserver([this, init_pid, self = ::gettid()](log::Level level, std::string_view message) {
    if (::gettid() != self) return;
    RecordEvent("supervisor", init_pid, sentry::audit::Decision::kNone,
                {{"level", level == log::Level::kError ? "error" : "warning"},
                 {"message", std::string(message)}});
  });
}

void AuditObserver::WriteDue() {
  std::vector<sentry::audit::Record>& due = repeats_.due();
  for (const sentry::audit::Record& summary : due) {
    sentry::audit::Record* record = writer_->Claim();
    if (record == nullptr) break;  // the ring is full: dropped, and counted
    *record = summary;
    writer_->Commit();
  }
  due.clear();
}

void AuditObserver::Sweep() {
  repeats_.Sweep(sentry::audit::RepeatLimiter::Clock::now(), Rfc3339NanoNow());
  WriteDue();
}

void AuditObserver::Flush() {
  repeats_.Sweep(sentry::audit::RepeatLimiter::Clock::now(), Rfc3339NanoNow(), /*all=*/true);
  WriteDue();
  writer_->Flush();
}

}  // namespace vigil::supervisor
