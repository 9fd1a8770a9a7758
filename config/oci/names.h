// Name tables: every spelling the runtime-spec allows for a closed set of
// values (capabilities, rlimits, seccomp architectures, ...) with its kernel
// value. Parsing checks against them and `vigil features` lists them, so the
// two cannot disagree.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vigil::config {

struct NamedValue {
  std::string_view name;
  unsigned long value;
};

// The value of `name` in `table`, if present.
const NamedValue* FindName(std::span<const NamedValue> table, std::string_view name);

// `unknown value "X"` plus, for short tables, the accepted spellings.
std::string UnknownNameMessage(std::string_view name, const std::vector<std::string_view>& names);

extern const NamedValue kCapabilityNames[41];        // CAP_CHOWN = 0 ... CAP_CHECKPOINT_RESTORE
extern const NamedValue kRlimitNames[16];            // RLIMIT_* = resource number
extern const NamedValue kSeccompArchNames[19];       // SCMP_ARCH_* = AUDIT_ARCH_*
extern const NamedValue kSeccompFlagNames[4];        // SECCOMP_FILTER_FLAG_*
extern const NamedValue kPropagationNames[8];        // rootfsPropagation: MS_* flags
extern const NamedValue kSchedulerPolicyNames[7];    // SCHED_*
extern const NamedValue kSchedulerFlagNames[7];      // SCHED_FLAG_*
extern const NamedValue kIoPriorityClassNames[3];    // IOPRIO_CLASS_*
extern const NamedValue kPersonalityDomainNames[2];  // LINUX, LINUX32
extern const NamedValue kDeviceTypeNames[4];         // linux.devices[].type: c, b, u, p
extern const NamedValue kCgroupDeviceTypeNames[3];   // resources.devices[].type: a, c, b

// Specialised for each enum the spec structs use (see enums.h).
template <typename E>
struct NameTable;

template <typename E>
std::vector<std::string_view> NamesOf() {
  std::vector<std::string_view> names;
  for (const auto& entry : NameTable<E>::kEntries) names.push_back(entry.first);
  return names;
}

template <typename E>
std::string_view NameOf(E value) {
  for (const auto& [name, v] : NameTable<E>::kEntries) {
    if (v == value) return name;
  }
  return "?";
}

std::vector<std::string_view> NamesOf(std::span<const NamedValue> table);

}  // namespace vigil::config
