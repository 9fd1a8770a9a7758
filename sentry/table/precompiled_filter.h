// The sentry's filter for each FilterOptions, compiled when vigil is built.
// libseccomp takes 3-6 ms to build and export the table's ~380 rules: a third
// of a `create`, and of every `exec`. The build runs BuildSentryFilter for
// every combination of options (sentry/table/filter_generator.cc) and
// compiles the programs in; a test checks that each is what BuildSentryFilter
// gives now. libseccomp's output depends on its version and on the kernel
// API level it detects, so a program is used only where both are the ones
// it was made with; anywhere else the filter is compiled as before.
#pragma once

#include <linux/filter.h>

#include <cstddef>
#include <optional>

#include "seccomp/profile.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

// What the build made for one combination of options.
struct PrecompiledProgram {
  const sock_filter* code = nullptr;  // null: the generator could not build it
  std::size_t size = 0;
  unsigned int flags = 0;
  bool has_notify = false;
};

// libseccomp as the generator found it.
struct PrecompiledWith {
  unsigned int major = 0, minor = 0, micro = 0;  // seccomp_version()
  unsigned int api_level = 0;                    // seccomp_api_get()
};

inline constexpr std::size_t kFilterVariants = 32;
// Every field of FilterOptions is a bit of the variant: a new option needs
// its own bit in VariantOf and OptionsOfVariant, or the build's programs
// would silently ignore it.
static_assert(sizeof(FilterOptions) == 5, "FilterOptions changed: update the variants");

// The index of `options` among the variants.
constexpr std::size_t VariantOf(const FilterOptions& options) {
  return (options.mediate_network ? 1u : 0u) | (options.mediate_files ? 2u : 0u) |
         (options.traced ? 4u : 0u) | (options.mediate_reads ? 8u : 0u) |
         (options.own_pid_namespace ? 16u : 0u);
}
constexpr FilterOptions OptionsOfVariant(std::size_t variant) {
  return {.mediate_network = (variant & 1u) != 0,
          .mediate_files = (variant & 2u) != 0,
          .mediate_reads = (variant & 8u) != 0,
          .traced = (variant & 4u) != 0,
          .own_pid_namespace = (variant & 16u) != 0};
}

namespace generated {
// Defined in the generated precompiled_filters.cc.
extern const PrecompiledProgram kSentryPrograms[kFilterVariants];
extern const PrecompiledWith kSentryProgramsWith;
}  // namespace generated

// The program BuildSentryFilter(options) gives, from the build, when this
// process's libseccomp is the generator's (version and API level); nullopt
// otherwise.
std::optional<seccomp::CompiledFilter> PrecompiledSentryFilter(const FilterOptions& options);

// PrecompiledSentryFilter, else BuildSentryFilter.
Result<seccomp::CompiledFilter> SentryFilterFor(const FilterOptions& options);

}  // namespace vigil::sentry
