// The timeout and its grace period from --timeout and the annotations.
#include "lifecycle/lifetime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

namespace vigil::lifecycle {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

config::Spec WithAnnotations(std::map<std::string, std::string> annotations) {
  config::Spec spec;
  spec.annotations = std::move(annotations);
  return spec;
}

TEST(LifetimeTest, NoTimeoutUnlessAskedAndTheDefaultGrace) {
  Result<Lifetime> none = ResolveLifetime(config::Spec{}, "");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->timeout, milliseconds(0));
  EXPECT_EQ(none->grace, kDefaultTimeoutGrace);
}

TEST(LifetimeTest, TheFlagTheAnnotationWithinItAndTheGrace) {
  EXPECT_EQ(ResolveLifetime(config::Spec{}, "1m30s")->timeout, milliseconds(90'000));
  EXPECT_EQ(ResolveLifetime(config::Spec{}, "1.5ms")->timeout, milliseconds(2)) << "rounded up";
  const config::Spec shorter =
      WithAnnotations({{"dev.vigil.timeout", "30s"}, {"dev.vigil.timeout-grace", "0"}});
  Result<Lifetime> both = ResolveLifetime(shorter, "10m");
  ASSERT_TRUE(both) << both.error().message;
  EXPECT_EQ(both->timeout, milliseconds(30'000));
  EXPECT_EQ(both->grace, milliseconds(0));
  EXPECT_EQ(ResolveLifetime(shorter, "")->timeout, milliseconds(30'000));
}

// The global --timeout (Docker's runtimeArgs) and the verb's: the shorter
// holds, and the annotation may not pass it.
TEST(LifetimeTest, TheShorterOfTheOperatorsTwoTimeoutsHolds) {
  EXPECT_EQ(ResolveLifetime(config::Spec{}, "", "5m")->timeout, milliseconds(300'000));
  EXPECT_EQ(ResolveLifetime(config::Spec{}, "1m", "5m")->timeout, milliseconds(60'000));
  EXPECT_EQ(ResolveLifetime(config::Spec{}, "10m", "5m")->timeout, milliseconds(300'000));
  Result<Lifetime> longer =
      ResolveLifetime(WithAnnotations({{"dev.vigil.timeout", "6m"}}), "10m", "5m");
  ASSERT_FALSE(longer);
  EXPECT_EQ(longer.error().message,
            R"(annotation dev.vigil.timeout: "6m" is longer than the runtime's --timeout "5m")");
}

TEST(LifetimeTest, ErrorsNameTheFlagOrAnnotation) {
  auto error = [](const config::Spec& spec, const std::string& flag) {
    Result<Lifetime> r = ResolveLifetime(spec, flag);
    return r ? std::string("(accepted)") : r.error().message;
  };
  EXPECT_EQ(error(config::Spec{}, "0"), R"(--timeout: "0" is not a duration above 0)");
  EXPECT_THAT(error(config::Spec{}, "soon"), HasSubstr("--timeout"));
  EXPECT_EQ(error(WithAnnotations({{"dev.vigil.timeout", "1h"}}), "10m"),
            R"(annotation dev.vigil.timeout: "1h" is longer than the runtime's --timeout "10m")");
  EXPECT_THAT(error(WithAnnotations({{"dev.vigil.timeout", "-5s"}}), ""),
              HasSubstr("annotation dev.vigil.timeout"));
  EXPECT_THAT(
      error(WithAnnotations({{"dev.vigil.timeout-grace", "-1s"}}), ""),
      HasSubstr(R"(annotation dev.vigil.timeout-grace: "-1s" is not a duration of 0 or more)"));
}

}  // namespace
}  // namespace vigil::lifecycle
