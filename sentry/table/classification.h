// What the sentry does with each syscall, as groups sharing a tier and a
// reason. syscall_table.cc joins these with the syscall numbers.
#pragma once

#include <string_view>
#include <vector>

#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

struct SyscallGroup {
  Tier tier;
  Guard guard;
  Scope scope;
  Handler handler;
  int deny_errno;
  std::string_view note;
  std::vector<std::string_view> names;
};

const std::vector<SyscallGroup>& SyscallGroups();

}  // namespace vigil::sentry
