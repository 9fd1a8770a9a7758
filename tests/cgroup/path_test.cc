#include "runtime/cgroup/path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::HasSubstr;

std::string Resolve(const std::string& path, bool systemd, const std::string& id = "c1") {
  Result<std::string> r = ResolveCgroupPath(path, id, systemd);
  return r ? *r : "error: " + r.error().message;
}

TEST(ResolveCgroupPathTest, EmptyIsVigilSlashId) { EXPECT_EQ(Resolve("", false), "/vigil/c1"); }

TEST(ResolveCgroupPathTest, AbsolutePathsAreCleaned) {
  EXPECT_EQ(Resolve("/docker/abc", false), "/docker/abc");
  EXPECT_EQ(Resolve("//a/./b//", false), "/a/b");
  EXPECT_EQ(Resolve("/a/../../../etc", false), "/etc");
}

TEST(ResolveCgroupPathTest, RelativePathsStayRelativeAndCannotClimb) {
  EXPECT_EQ(Resolve("a/b", false), "a/b");
  EXPECT_EQ(Resolve("./a/../../b", false), "b");
}

TEST(ResolveCgroupPathTest, RootIsRefused) {
  EXPECT_THAT(Resolve("/", false), HasSubstr("names the root cgroup"));
  EXPECT_THAT(Resolve("a/..", false), HasSubstr("linux.cgroupsPath \"a/..\""));
}

TEST(ResolveCgroupPathTest, WithoutSystemdAColonPathIsJustAName) {
  // As runc's cgroupfs driver: no slice parsing unless asked.
  EXPECT_EQ(Resolve("system.slice:docker:abc", false), "system.slice:docker:abc");
}

TEST(ResolveCgroupPathTest, SystemdScopes) {
  EXPECT_EQ(Resolve("system.slice:docker:abc", true), "/system.slice/docker-abc.scope");
  EXPECT_EQ(Resolve("kubepods-besteffort-pod123.slice:cri-containerd:abc", true),
            "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod123.slice/"
            "cri-containerd-abc.scope");
  EXPECT_EQ(Resolve(":docker:abc", true), "/system.slice/docker-abc.scope");
  EXPECT_EQ(Resolve("user.slice::abc", true), "/user.slice/abc.scope");
  EXPECT_EQ(Resolve("-.slice:p:abc", true), "/p-abc.scope");
}

TEST(ResolveCgroupPathTest, SystemdSliceAsName) {
  EXPECT_EQ(Resolve("kubepods.slice:x:kubepods-burstable.slice", true),
            "/kubepods.slice/kubepods-burstable.slice");
}

TEST(ResolveCgroupPathTest, SystemdDefault) {
  EXPECT_EQ(Resolve("", true, "web"), "/system.slice/vigil-web.scope");
}

TEST(ResolveCgroupPathTest, SystemdMalformed) {
  EXPECT_THAT(Resolve("/docker/abc", true), HasSubstr("slice:prefix:name"));
  EXPECT_THAT(Resolve("a:b:c:d", true), HasSubstr("slice:prefix:name"));
  EXPECT_THAT(Resolve("system:docker:abc", true), HasSubstr("invalid slice name"));
  EXPECT_THAT(Resolve("a--b.slice:docker:abc", true), HasSubstr("empty component"));
  EXPECT_THAT(Resolve("system.slice:docker:", true), HasSubstr("name part is empty"));
  EXPECT_THAT(Resolve("system.slice:docker:a/b", true), HasSubstr("must not contain"));
}

TEST(ExpandSliceTest, NestsByDashes) {
  EXPECT_EQ(*ExpandSlice("test.slice"), "/test.slice");
  EXPECT_EQ(*ExpandSlice("test-a-b.slice"), "/test.slice/test-a.slice/test-a-b.slice");
  EXPECT_EQ(*ExpandSlice("-.slice"), "/");
  EXPECT_FALSE(ExpandSlice(".slice"));
  EXPECT_FALSE(ExpandSlice("-test.slice"));
  EXPECT_FALSE(ExpandSlice("test-.slice"));
  EXPECT_FALSE(ExpandSlice("a/b.slice"));
  EXPECT_FALSE(ExpandSlice("test.scope"));
}

TEST(CleanCgroupPathTest, Lexical) {
  EXPECT_EQ(CleanCgroupPath("/a//b/./c/.."), "/a/b");
  EXPECT_EQ(CleanCgroupPath("a/b/"), "a/b");
  EXPECT_EQ(CleanCgroupPath("/.."), "/");
  EXPECT_EQ(CleanCgroupPath(""), "");
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
