// Enumerations of the runtime-spec whose values the runtime branches on.
#pragma once

#include <string_view>
#include <utility>

#include "config/oci/names.h"

namespace vigil::config {

enum class NamespaceType { kPid, kNetwork, kMount, kIpc, kUts, kUser, kCgroup, kTime };

template <>
struct NameTable<NamespaceType> {
  static constexpr std::pair<std::string_view, NamespaceType> kEntries[] = {
      {"pid", NamespaceType::kPid},       {"network", NamespaceType::kNetwork},
      {"mount", NamespaceType::kMount},   {"ipc", NamespaceType::kIpc},
      {"uts", NamespaceType::kUts},       {"user", NamespaceType::kUser},
      {"cgroup", NamespaceType::kCgroup}, {"time", NamespaceType::kTime},
  };
};

enum class SeccompAction {
  kKill,  // SCMP_ACT_KILL: the thread
  kKillProcess,
  kKillThread,
  kTrap,
  kErrno,
  kTrace,
  kAllow,
  kLog,
  kNotify,
};

template <>
struct NameTable<SeccompAction> {
  static constexpr std::pair<std::string_view, SeccompAction> kEntries[] = {
      {"SCMP_ACT_KILL", SeccompAction::kKill},
      {"SCMP_ACT_KILL_PROCESS", SeccompAction::kKillProcess},
      {"SCMP_ACT_KILL_THREAD", SeccompAction::kKillThread},
      {"SCMP_ACT_TRAP", SeccompAction::kTrap},
      {"SCMP_ACT_ERRNO", SeccompAction::kErrno},
      {"SCMP_ACT_TRACE", SeccompAction::kTrace},
      {"SCMP_ACT_ALLOW", SeccompAction::kAllow},
      {"SCMP_ACT_LOG", SeccompAction::kLog},
      {"SCMP_ACT_NOTIFY", SeccompAction::kNotify},
  };
};

enum class SeccompOperator {
  kNotEqual,
  kLessThan,
  kLessEqual,
  kEqual,
  kGreaterEqual,
  kGreaterThan,
  kMaskedEqual
};

template <>
struct NameTable<SeccompOperator> {
  static constexpr std::pair<std::string_view, SeccompOperator> kEntries[] = {
      {"SCMP_CMP_NE", SeccompOperator::kNotEqual},
      {"SCMP_CMP_LT", SeccompOperator::kLessThan},
      {"SCMP_CMP_LE", SeccompOperator::kLessEqual},
      {"SCMP_CMP_EQ", SeccompOperator::kEqual},
      {"SCMP_CMP_GE", SeccompOperator::kGreaterEqual},
      {"SCMP_CMP_GT", SeccompOperator::kGreaterThan},
      {"SCMP_CMP_MASKED_EQ", SeccompOperator::kMaskedEqual},
  };
};

}  // namespace vigil::config
