#include "config/policy/glob.h"

#include <gtest/gtest.h>

#include <string>

namespace vigil::config {
namespace {

std::string GlobError(std::string_view pattern) {
  Result<void> r = CheckGlob(pattern);
  return r ? "" : r.error().message;
}

TEST(CheckGlobTest, AcceptsAbsoluteNormalisedPatterns) {
  for (const char* p : {"/", "/etc/shadow", "/tmp/**", "/**", "/usr/bin/*", "/home/*/.ssh/**",
                        "/dev/tty?", "/[ab]in/sh"}) {
    EXPECT_EQ(GlobError(p), "") << p;
  }
}

TEST(CheckGlobTest, RefusesRelativeAndUnnormalisedPatterns) {
  EXPECT_EQ(GlobError("tmp/**"), "must be an absolute path");
  EXPECT_EQ(GlobError(""), "must be an absolute path");
  EXPECT_EQ(GlobError("/tmp/"), "must not end with '/'");
  EXPECT_EQ(GlobError("/tmp//x"), "must not contain an empty component (\"//\")");
  EXPECT_EQ(GlobError("/tmp/../etc"), "must be normalised (no \".\" or \"..\" components)");
  EXPECT_EQ(GlobError("/./etc"), "must be normalised (no \".\" or \"..\" components)");
}

TEST(CheckGlobTest, RefusesDoubleStarExceptAsLastComponent) {
  const std::string kMessage = "\"**\" is only allowed as the last component (\"/dir/**\")";
  EXPECT_EQ(GlobError("/a/**/b"), kMessage);
  EXPECT_EQ(GlobError("/a**"), kMessage);
  EXPECT_EQ(GlobError("/a/**x"), kMessage);
  EXPECT_EQ(GlobError("/a/x**"), kMessage);
  EXPECT_EQ(GlobError("/a/***"), kMessage);
}

TEST(GlobMatchesTest, TrailingDoubleStarMatchesTheDirectoryAndBelow) {
  EXPECT_TRUE(GlobMatches("/tmp/**", "/tmp"));
  EXPECT_TRUE(GlobMatches("/tmp/**", "/tmp/a"));
  EXPECT_TRUE(GlobMatches("/tmp/**", "/tmp/a/b"));
  EXPECT_TRUE(GlobMatches("/tmp/**", "/tmp/.hidden/x"));
  EXPECT_FALSE(GlobMatches("/tmp/**", "/tmpx"));
  EXPECT_FALSE(GlobMatches("/tmp/**", "/tmpx/a"));
  EXPECT_FALSE(GlobMatches("/tmp/**", "/"));
  EXPECT_FALSE(GlobMatches("/tmp/**", "/var/tmp"));
}

TEST(GlobMatchesTest, RootDoubleStarMatchesEverything) {
  EXPECT_TRUE(GlobMatches("/**", "/"));
  EXPECT_TRUE(GlobMatches("/**", "/etc/passwd"));
}

TEST(GlobMatchesTest, StarDoesNotCrossSlash) {
  EXPECT_TRUE(GlobMatches("/usr/bin/*", "/usr/bin/python3"));
  EXPECT_FALSE(GlobMatches("/usr/bin/*", "/usr/bin/x/y"));
  EXPECT_FALSE(GlobMatches("/usr/*", "/usr/bin/python3"));
  EXPECT_FALSE(GlobMatches("/usr/bin/?", "/usr/bin/ab"));
  EXPECT_TRUE(GlobMatches("/usr/bin/?", "/usr/bin/a"));
  EXPECT_FALSE(GlobMatches("/a?b", "/a/b"));
  EXPECT_FALSE(GlobMatches("/a[/]b", "/a/b"));
}

// Found by policy_fuzzer: fnmatch lets '*' match the empty name after the
// root's '/', so "/*" (meant for what is in /) matched / itself, and a
// hidden "/*" hid the root directory.
TEST(GlobMatchesTest, WildcardsDoNotMatchTheRoot) {
  EXPECT_FALSE(GlobMatches("/*", "/"));
  EXPECT_TRUE(GlobMatches("/*", "/etc"));
  EXPECT_FALSE(GlobMatches("/*/**", "/"));
  EXPECT_TRUE(GlobMatches("/*/**", "/etc/passwd"));
  EXPECT_TRUE(GlobMatches("/", "/"));
  EXPECT_FALSE(GlobMatches("/", "/etc"));
}

TEST(GlobMatchesTest, StarMatchesLeadingDots) {
  EXPECT_TRUE(GlobMatches("/home/*", "/home/.bashrc"));
}

TEST(GlobMatchesTest, GlobsBeforeDoubleStar) {
  EXPECT_TRUE(GlobMatches("/home/*/.ssh/**", "/home/alice/.ssh"));
  EXPECT_TRUE(GlobMatches("/home/*/.ssh/**", "/home/alice/.ssh/id_ed25519"));
  EXPECT_FALSE(GlobMatches("/home/*/.ssh/**", "/home/alice/x/.ssh/id"));
  EXPECT_FALSE(GlobMatches("/home/*/.ssh/**", "/home/alice/.sshx"));
}

TEST(GlobMatchesTest, PlainPathsMatchExactly) {
  EXPECT_TRUE(GlobMatches("/etc/shadow", "/etc/shadow"));
  EXPECT_FALSE(GlobMatches("/etc/shadow", "/etc/shadow-"));
  EXPECT_FALSE(GlobMatches("/etc/shadow", "/etc/shadow/x"));
  EXPECT_FALSE(GlobMatches("/etc", "/etc/passwd"));
}

// Patterns without a wildcard are compared, not handed to fnmatch: each must
// answer as the same pattern with one letter spelled as a bracket
// expression, which only fnmatch reads.
TEST(GlobMatchesTest, PlainPatternsAnswerAsFnmatchWould) {
  const std::pair<const char*, const char*> kSpellings[] = {
      {"/tmp/**", "/t[m]p/**"},
      {"/etc/shadow", "/etc/s[h]adow"},
      {"/", "/"},
      {"/a/b/**", "/[a]/b/**"},
  };
  const char* kPaths[] = {"/",     "/tmp",    "/tmp/",       "/tmp/a",       "/tmp/a/b",
                          "/tmpx", "/tmpx/a", "/etc/shadow", "/etc/shadow-", "/etc/shadow/x",
                          "/a",    "/a/b",    "/a/bc",       "/a/b/c",       "/x/tmp"};
  for (const auto& [plain, bracketed] : kSpellings) {
    for (const char* path : kPaths) {
      EXPECT_EQ(GlobMatches(plain, path), GlobMatches(bracketed, path))
          << plain << " against " << path;
    }
  }
}

TEST(EscapeGlobTest, MatchesThePathItselfOnly) {
  for (const std::string path :
       {"/srv/a*b", "/srv/[x]", "/srv/what?", "/srv/back\\slash", "/plain"}) {
    const std::string pattern = EscapeGlob(path);
    EXPECT_TRUE(CheckGlob(pattern)) << pattern;
    EXPECT_TRUE(GlobMatches(pattern, path)) << pattern;
    EXPECT_TRUE(GlobMatches(pattern + "/**", path + "/below")) << pattern;
  }
  EXPECT_FALSE(GlobMatches(EscapeGlob("/srv/a*b"), "/srv/axxb"));
  EXPECT_FALSE(GlobMatches(EscapeGlob("/srv/[x]"), "/srv/x"));
  EXPECT_FALSE(GlobMatches(EscapeGlob("/srv/what?"), "/srv/whats"));
  EXPECT_EQ(GlobMatchesTree(EscapeGlob("/srv/a*b") + "/**", "/srv/a*b/c"), TreeMatch::kAll);
}

TEST(GlobMatchesTreeTest, RelatesAPatternToADirectoryAndEverythingBeneath) {
  EXPECT_EQ(GlobMatchesTree("/tmp/**", "/tmp"), TreeMatch::kAll);
  EXPECT_EQ(GlobMatchesTree("/tmp/**", "/tmp/a/b"), TreeMatch::kAll);
  EXPECT_EQ(GlobMatchesTree("/**", "/etc"), TreeMatch::kAll);
  EXPECT_EQ(GlobMatchesTree("/home/*/.ssh/**", "/home/alice/.ssh/keys"), TreeMatch::kAll);
  EXPECT_EQ(GlobMatchesTree("/tmp/**", "/var"), TreeMatch::kNone);
  EXPECT_EQ(GlobMatchesTree("/tmp/**", "/tmpx"), TreeMatch::kNone);
  // Patterns reaching below the directory match some of its tree.
  EXPECT_EQ(GlobMatchesTree("/etc/secret", "/etc"), TreeMatch::kSome);
  EXPECT_EQ(GlobMatchesTree("/etc/secret", "/"), TreeMatch::kSome);
  EXPECT_EQ(GlobMatchesTree("/home/*/.ssh/**", "/home"), TreeMatch::kSome);
  EXPECT_EQ(GlobMatchesTree("/home/*/.ssh/**", "/home/alice"), TreeMatch::kSome);
  EXPECT_EQ(GlobMatchesTree("/etc/*.key", "/etc"), TreeMatch::kSome);
  // The directory itself only.
  EXPECT_EQ(GlobMatchesTree("/etc", "/etc"), TreeMatch::kSome);
  // Shorter than the directory and not recursive: nothing in the tree.
  EXPECT_EQ(GlobMatchesTree("/etc", "/etc/ssl"), TreeMatch::kNone);
  EXPECT_EQ(GlobMatchesTree("/home/bob/.ssh/**", "/home/alice"), TreeMatch::kNone);
}

}  // namespace
}  // namespace vigil::config
