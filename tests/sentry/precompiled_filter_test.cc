// The programs compiled in at build time are BuildSentryFilter's, variant by
// variant: a change to the table, the filter's layout or libseccomp that
// the build did not pick up would show here.
#include "sentry/table/precompiled_filter.h"

#include <gtest/gtest.h>

#include <cstring>

#include "sentry/table/sentry_filter.h"

namespace vigil::sentry {
namespace {

bool SameProgram(const seccomp::CompiledFilter& a, const seccomp::CompiledFilter& b) {
  return a.program.size() == b.program.size() &&
         std::memcmp(a.program.data(), b.program.data(), a.program.size() * sizeof(sock_filter)) ==
             0 &&
         a.flags == b.flags && a.has_notify == b.has_notify;
}

TEST(PrecompiledSentryFilter, EveryVariantIsWhatBuildSentryFilterGives) {
  for (std::size_t variant = 0; variant < kFilterVariants; ++variant) {
    SCOPED_TRACE(testing::Message() << "variant " << variant);
    const FilterOptions options = OptionsOfVariant(variant);
    ASSERT_EQ(VariantOf(options), variant);
    Result<seccomp::CompiledFilter> built = BuildSentryFilter(options);
    ASSERT_TRUE(built) << built.error().message;
    // Built by the same libseccomp on the same kernel as the generator's
    // run, so the program must be there.
    std::optional<seccomp::CompiledFilter> precompiled = PrecompiledSentryFilter(options);
    ASSERT_TRUE(precompiled.has_value());
    EXPECT_TRUE(SameProgram(*precompiled, *built));
    Result<seccomp::CompiledFilter> chosen = SentryFilterFor(options);
    ASSERT_TRUE(chosen);
    EXPECT_TRUE(SameProgram(*chosen, *built));
  }
}

TEST(PrecompiledSentryFilter, TheVariantsDiffer) {
  // Options that change what is mediated change the program (the index is
  // not collapsing two of them).
  std::optional<seccomp::CompiledFilter> plain = PrecompiledSentryFilter(OptionsOfVariant(0));
  std::optional<seccomp::CompiledFilter> files = PrecompiledSentryFilter({.mediate_files = true});
  std::optional<seccomp::CompiledFilter> traced = PrecompiledSentryFilter({.traced = true});
  ASSERT_TRUE(plain && files && traced);
  EXPECT_FALSE(SameProgram(*plain, *files));
  EXPECT_FALSE(SameProgram(*plain, *traced));
}

}  // namespace
}  // namespace vigil::sentry
