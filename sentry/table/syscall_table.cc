#include "sentry/table/syscall_table.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <vector>

#include "sentry/table/classification.h"
#include "sentry/table/x86_64_syscalls.h"

namespace vigil::sentry {
namespace {

std::vector<SyscallEntry> BuildTable() {
  std::map<std::string_view, const SyscallGroup*> group_of;
  for (const SyscallGroup& group : SyscallGroups()) {
    for (std::string_view name : group.names) group_of.emplace(name, &group);
  }
  std::vector<SyscallEntry> table;
  for (const SyscallNumber& syscall : X86_64Syscalls()) {
    SyscallEntry entry{.number = syscall.number, .name = syscall.name};
    if (auto it = group_of.find(syscall.name); it != group_of.end()) {
      const SyscallGroup& group = *it->second;
      entry.tier = group.tier;
      entry.guard = group.guard;
      entry.scope = group.scope;
      entry.handler = group.handler;
      entry.deny_errno = group.deny_errno;
      entry.note = group.note;
    } else {
      // Fail closed; the invariant tests make sure this never ships.
      entry.deny_errno = ENOSYS;
      entry.note = "not classified";
    }
    table.push_back(entry);
  }
  return table;
}

}  // namespace

std::span<const SyscallEntry> SyscallTable() {
  static const std::vector<SyscallEntry> kTable = BuildTable();
  return kTable;
}

const SyscallEntry* FindSyscall(int number) {
  std::span<const SyscallEntry> table = SyscallTable();
  auto it = std::lower_bound(table.begin(), table.end(), number,
                             [](const SyscallEntry& e, int n) { return e.number < n; });
  return it != table.end() && it->number == number ? &*it : nullptr;
}

const SyscallEntry* FindSyscall(std::string_view name) {
  for (const SyscallEntry& entry : SyscallTable()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string_view NameOf(Tier tier) {
  switch (tier) {
    case Tier::kFast:
      return "fast";
    case Tier::kMediated:
      return "mediated";
    case Tier::kTraced:
      return "traced";
    case Tier::kDenied:
      return "denied";
  }
  return "?";
}

std::string_view NameOf(Handler handler) {
  switch (handler) {
    case Handler::kNone:
      return "";
#define VIGIL_HANDLER(id, name, ...) \
  case Handler::k##id:               \
    return name;
#include "sentry/table/handlers.def"
  }
  return "?";
}

Changes ChangesOf(Handler handler) {
  switch (handler) {
    case Handler::kNone:
      return Changes::kNothing;
#define VIGIL_HANDLER(id, name, scope, guard, changes, ...) \
  case Handler::k##id:                                      \
    return Changes::changes;
#include "sentry/table/handlers.def"
  }
  return Changes::kNothing;
}

bool OnlyLooks(int number, const std::array<std::uint64_t, 6>& args) {
  const SyscallEntry* entry = FindSyscall(number);
  if (entry == nullptr) return false;
  if (entry->scope == Scope::kFileReads) return true;
  if (entry->guard != Guard::kWriteOpens) return false;
  const std::uint64_t flags = args[OpenFlagsArgument(number)];
  return (flags & kWriteOpenFlags) == 0;
}

namespace {

bool InScope(Scope scope, const FilterOptions& options) {
  switch (scope) {
    case Scope::kAlways:
      return true;
    case Scope::kNetworkPolicy:
      return options.mediate_network;
    case Scope::kFilePolicy:
      return options.mediate_files;
    case Scope::kFileReads:
      return options.mediate_files && options.mediate_reads;
    case Scope::kOutsidePids:
      return !options.own_pid_namespace;
  }
  return true;
}

}  // namespace

Tier EffectiveTier(const SyscallEntry& entry, const FilterOptions& options) {
  return InScope(entry.scope, options) ? entry.tier : Tier::kFast;
}

}  // namespace vigil::sentry
