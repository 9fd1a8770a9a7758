#include "lifecycle/audit_settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "base/strings.h"
#include "config/oci/vigil_annotations.h"
#include "runtime/container/state_dir.h"

namespace vigil::lifecycle {
namespace {

using ::testing::HasSubstr;

config::Spec WithAnnotations(std::map<std::string, std::string> annotations) {
  config::Spec spec;
  spec.annotations = std::move(annotations);
  return spec;
}

// The annotation (a pod's choice, only within the annotations' directory),
// then --audit, then the state root's kept logs. The directories are the
// test's own: a unit test reads nothing of the host's (/var/log/vigil).
TEST(AuditPathTest, TheAnnotationThenTheFlagThenTheStateDirectory) {
  char root[] = "/tmp/vigil-audit-path-XXXXXX";
  ASSERT_NE(::mkdtemp(root), nullptr);
  Result<runtime::StateDir> dir = runtime::StateDir::Create(root, "c1");
  ASSERT_TRUE(dir) << dir.error().message;
  const std::string logs = StrCat(root, "/logs");
  const config::Spec annotated =
      WithAnnotations({{std::string(config::kAuditAnnotation), "pod.jsonl"}});
  EXPECT_EQ(ResolveAuditPath(annotated, "/srv/all.jsonl", *dir, logs).value_or(""),
            StrCat(logs, "/pod.jsonl"));
  EXPECT_TRUE(std::filesystem::is_directory(logs));
  const config::Spec elsewhere =
      WithAnnotations({{std::string(config::kAuditAnnotation), "/etc/pod.jsonl"}});
  EXPECT_THAT(ResolveAuditPath(elsewhere, "", *dir, logs).error().message,
              HasSubstr(StrCat("is not a file in ", logs)));
  EXPECT_EQ(ResolveAuditPath(config::Spec{}, "/srv/all.jsonl", *dir, logs).value_or(""),
            "/srv/all.jsonl");
  EXPECT_EQ(ResolveAuditPath(config::Spec{}, "", *dir, logs).value_or(""),
            StrCat(root, "/.audit/c1.jsonl"));
  EXPECT_TRUE(std::filesystem::is_directory(StrCat(root, "/.audit")));
  std::filesystem::remove_all(root);
}

TEST(AuditRotationTest, DefaultsFlagsAndAnnotationsThatTighten) {
  Result<sentry::audit::Rotation> r = ResolveAuditRotation(config::Spec{}, "", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (sentry::audit::Rotation{.max_bytes = 10 << 20, .max_files = 3}));
  r = ResolveAuditRotation(config::Spec{}, "64k", "5");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (sentry::audit::Rotation{.max_bytes = 64 << 10, .max_files = 5}));
  r = ResolveAuditRotation(config::Spec{}, "-1", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->max_bytes, 0u) << "no cap";
  r = ResolveAuditRotation(
      WithAnnotations({{"dev.vigil.audit-max-size", "1m"}, {"dev.vigil.audit-max-files", "2"}}), "",
      "");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (sentry::audit::Rotation{.max_bytes = 1 << 20, .max_files = 2}));
}

// The operator's cap holds: a pod may not loosen it.
TEST(AuditRotationTest, AnAnnotationCannotLoosenTheCap) {
  auto error = [](std::map<std::string, std::string> annotations, std::string size = "") {
    return ResolveAuditRotation(WithAnnotations(std::move(annotations)), size, "").error().message;
  };
  EXPECT_EQ(error({{"dev.vigil.audit-max-size", "1g"}}),
            "annotation dev.vigil.audit-max-size: \"1g\" is above the runtime's cap of 10485760 "
            "bytes (--audit-max-size)");
  EXPECT_THAT(error({{"dev.vigil.audit-max-size", "-1"}}), HasSubstr("is above the runtime's cap"));
  EXPECT_EQ(error({{"dev.vigil.audit-max-files", "9"}}),
            "annotation dev.vigil.audit-max-files: 9 is above the runtime's cap of 3 files "
            "(--audit-max-files)");
  EXPECT_TRUE(
      ResolveAuditRotation(WithAnnotations({{"dev.vigil.audit-max-size", "1g"}}), "-1", ""));
}

TEST(AuditRotationTest, BadValuesNameWhereTheyCameFrom) {
  EXPECT_THAT(ResolveAuditRotation(config::Spec{}, "lots", "").error().message,
              HasSubstr("--audit-max-size: invalid size \"lots\""));
  EXPECT_THAT(ResolveAuditRotation(config::Spec{}, "0", "").error().message,
              HasSubstr("--audit-max-size: 0 bytes would keep no audit"));
  EXPECT_EQ(ResolveAuditRotation(config::Spec{}, "", "0").error().message,
            "--audit-max-files: expected a number of files of at least 1, got \"0\"");
  EXPECT_THAT(ResolveAuditRotation(WithAnnotations({{"dev.vigil.audit-max-files", "x"}}), "", "")
                  .error()
                  .message,
              HasSubstr("annotation dev.vigil.audit-max-files: expected a number"));
}

}  // namespace
}  // namespace vigil::lifecycle
