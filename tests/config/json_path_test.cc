#include "config/oci/json_path.h"

#include <gtest/gtest.h>

namespace vigil::config {
namespace {

TEST(JsonPathTest, RootPrintsAsRoot) { EXPECT_EQ(JsonPath().ToString(), "(root)"); }

TEST(JsonPathTest, TopLevelKeyHasNoLeadingDot) {
  EXPECT_EQ(JsonPath().Key("ociVersion").ToString(), "ociVersion");
}

TEST(JsonPathTest, NestedKeysAreJoinedWithDots) {
  EXPECT_EQ(JsonPath().Key("linux").Key("resources").Key("memory").Key("limit").ToString(),
            "linux.resources.memory.limit");
}

TEST(JsonPathTest, IndexesFollowTheirArrayInBrackets) {
  EXPECT_EQ(JsonPath().Key("linux").Key("namespaces").Index(2).Key("type").ToString(),
            "linux.namespaces[2].type");
  EXPECT_EQ(JsonPath().Key("process").Key("rlimits").Index(0).ToString(), "process.rlimits[0]");
}

TEST(JsonPathTest, NestedIndexesAreConsecutive) {
  EXPECT_EQ(JsonPath().Key("a").Index(1).Index(23).ToString(), "a[1][23]");
}

TEST(JsonPathTest, IndexAtTheRootHasNoPrefix) {
  EXPECT_EQ(JsonPath().Index(0).ToString(), "[0]");
  EXPECT_EQ(JsonPath().Index(0).Key("id").ToString(), "[0].id");
}

TEST(JsonPathTest, IdentifierKeysMayHoldDigitsAndUnderscores) {
  EXPECT_EQ(JsonPath().Key("linux").Key("sysctl").Key("net_core2").ToString(),
            "linux.sysctl.net_core2");
}

TEST(JsonPathTest, KeysThatAreNotIdentifiersAreQuoted) {
  EXPECT_EQ(JsonPath().Key("annotations").Key("io.k8s.x").ToString(), R"(annotations["io.k8s.x"])");
  EXPECT_EQ(JsonPath().Key("annotations").Key("io.kubernetes.cri.container-type").ToString(),
            R"(annotations["io.kubernetes.cri.container-type"])");
  EXPECT_EQ(JsonPath().Key("linux").Key("resources").Key("unified").Key("memory.max").ToString(),
            R"(linux.resources.unified["memory.max"])");
}

TEST(JsonPathTest, QuotedKeyAtTheRootHasNoPrefix) {
  EXPECT_EQ(JsonPath().Key("a b").ToString(), R"(["a b"])");
}

TEST(JsonPathTest, PathContinuesAfterAQuotedKey) {
  EXPECT_EQ(JsonPath()
                .Key("linux")
                .Key("resources")
                .Key("rdma")
                .Key("mlx5-0")
                .Key("hcaHandles")
                .ToString(),
            R"(linux.resources.rdma["mlx5-0"].hcaHandles)");
}

TEST(JsonPathTest, EmptyKeyIsQuoted) {
  EXPECT_EQ(JsonPath().Key("annotations").Key("").ToString(), R"(annotations[""])");
}

TEST(JsonPathTest, QuotesAndControlCharactersInKeysAreEscaped) {
  EXPECT_EQ(JsonPath().Key("a").Key("say \"hi\"").ToString(), R"(a["say \"hi\""])");
  EXPECT_EQ(JsonPath().Key("a").Key("line\nbreak").ToString(), R"(a["line\nbreak"])");
  EXPECT_EQ(JsonPath().Key("a").Key("bell\x07").ToString(), R"(a["bell\u0007"])");
}

TEST(JsonPathTest, NonAsciiKeysAreQuoted) {
  EXPECT_EQ(JsonPath().Key("annotations").Key("caf\xc3\xa9").ToString(),
            "annotations[\"caf\xc3\xa9\"]");
}

TEST(JsonPathTest, BuildingAChildLeavesTheParentUnchanged) {
  JsonPath root;
  JsonPath linux_path = root.Key("linux");
  EXPECT_EQ(linux_path.Key("namespaces").ToString(), "linux.namespaces");
  EXPECT_EQ(linux_path.Key("devices").ToString(), "linux.devices");
  EXPECT_EQ(linux_path.ToString(), "linux");
  EXPECT_EQ(root.ToString(), "(root)");
}

TEST(JsonPathTest, PathBuiltFromTemporariesStaysValid) {
  JsonPath parent = JsonPath().Key("linux").Key("seccomp");
  JsonPath at = parent.Key("syscalls").Index(3);
  EXPECT_EQ(at.Key("names").Index(0).ToString(), "linux.seccomp.syscalls[3].names[0]");
  JsonPath copy = at;
  EXPECT_EQ(copy.ToString(), "linux.seccomp.syscalls[3]");
}

}  // namespace
}  // namespace vigil::config
