// Who asks a pause to release memory (the flag, the annotation), and what
// `state` says of memory that stayed resident.
#include "lifecycle/memory_release.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/oci/vigil_annotations.h"

namespace vigil::lifecycle {
namespace {

using ::testing::HasSubstr;

runtime::ContainerRecord Annotated(std::string value) {
  runtime::ContainerRecord record;
  record.id = "c";
  record.annotations[std::string(config::kPauseReleaseMemoryAnnotation)] = std::move(value);
  return record;
}

TEST(WantsMemoryReleaseTest, TheFlagAsksWithoutAnAnnotation) {
  EXPECT_TRUE(*WantsMemoryRelease(runtime::ContainerRecord{}, /*asked=*/true));
  EXPECT_FALSE(*WantsMemoryRelease(runtime::ContainerRecord{}, /*asked=*/false));
}

TEST(WantsMemoryReleaseTest, TheAnnotationAsksForAPlainPause) {
  EXPECT_TRUE(*WantsMemoryRelease(Annotated("true"), /*asked=*/false));
  // "false" says nothing against the flag of the one who pauses.
  EXPECT_FALSE(*WantsMemoryRelease(Annotated("false"), /*asked=*/false));
  EXPECT_TRUE(*WantsMemoryRelease(Annotated("false"), /*asked=*/true));
}

TEST(WantsMemoryReleaseTest, AnotherValueIsAnErrorNamingTheAnnotation) {
  Result<bool> wants = WantsMemoryRelease(Annotated("yes"), false);
  ASSERT_FALSE(wants);
  EXPECT_EQ(wants.error().message,
            "annotation dev.vigil.pause-release-memory: \"yes\" is neither \"true\" nor \"false\"");
}

TEST(StayedResidentNoteTest, SaysWhyWhenTheHostHasNoRoomInSwap) {
  EXPECT_THAT(StayedResidentNote(0, 0), HasSubstr("no swap on this host"));
  EXPECT_THAT(StayedResidentNote(1 << 30, 0), HasSubstr("swap is full"));
  EXPECT_EQ(StayedResidentNote(1 << 30, 512 << 20), "");
}

}  // namespace
}  // namespace vigil::lifecycle
