#include "cli/flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vigil::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr FlagSpec kSpecs[] = {
    {"bundle", "b", true, "DIR", "bundle"},
    {"detach", "d", false, "", "detach"},
    {"env", "e", true, "KEY=VALUE", "environment"},
};

Result<ParsedFlags> Parse(std::vector<std::string> args) { return ParseFlags(kSpecs, args); }

TEST(FlagsTest, AcceptsEveryRuncSpelling) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--bundle", "/b", "id"},
                                                                {"--bundle=/b", "id"},
                                                                {"-bundle", "/b", "id"},
                                                                {"-bundle=/b", "id"},
                                                                {"-b", "/b", "id"},
                                                                {"--b=/b", "id"}}) {
    auto parsed = Parse(args);
    ASSERT_TRUE(parsed) << args[0];
    EXPECT_EQ(parsed->Value("bundle"), "/b") << args[0];
    EXPECT_THAT(parsed->positional, ElementsAre("id")) << args[0];
  }
}

TEST(FlagsTest, BooleansTakeOptionalTrueOrFalse) {
  EXPECT_TRUE(Parse({"-d"})->IsSet("detach"));
  EXPECT_TRUE(Parse({"--detach=true"})->IsSet("detach"));
  EXPECT_FALSE(Parse({"--detach=false"})->IsSet("detach"));
  EXPECT_FALSE(Parse({})->IsSet("detach"));
  EXPECT_THAT(Parse({"--detach=maybe"}).error().message,
              HasSubstr("flag --detach: expected true or false, got \"maybe\""));
}

TEST(FlagsTest, ParsingStopsAtTheFirstPositionalArgument) {
  auto parsed = Parse({"-d", "id", "sh", "-c", "--bundle"});
  ASSERT_TRUE(parsed);
  EXPECT_THAT(parsed->positional, ElementsAre("id", "sh", "-c", "--bundle"));
  EXPECT_FALSE(parsed->Value("bundle"));
}

// runc's verbs that take only the id accept their flags after it too
// (`runc update ID --memory 1G`), which scripts and runc's tests use.
TEST(FlagsTest, MixedPositionalsLeaveFlagsAfterTheIdToo) {
  auto parsed = ParseFlags(kSpecs, std::vector<std::string>{"id", "-d", "--bundle", "/b", "x"},
                           nullptr, Positionals::kMixWithFlags);
  ASSERT_TRUE(parsed);
  EXPECT_THAT(parsed->positional, ElementsAre("id", "x"));
  EXPECT_TRUE(parsed->IsSet("detach"));
  EXPECT_EQ(parsed->Value("bundle"), "/b");
  auto after_dashes = ParseFlags(kSpecs, std::vector<std::string>{"id", "--", "-d"}, nullptr,
                                 Positionals::kMixWithFlags);
  ASSERT_TRUE(after_dashes);
  EXPECT_THAT(after_dashes->positional, ElementsAre("id", "-d"));
  EXPECT_FALSE(after_dashes->IsSet("detach"));
}

TEST(FlagsTest, DoubleDashEndsTheFlags) {
  auto parsed = Parse({"--", "-d"});
  ASSERT_TRUE(parsed);
  EXPECT_THAT(parsed->positional, ElementsAre("-d"));
  EXPECT_FALSE(parsed->IsSet("detach"));
}

TEST(FlagsTest, RepeatedFlagsKeepEveryValueAndTheLastWins) {
  auto parsed = Parse({"-e", "A=1", "--env=B=2"});
  ASSERT_TRUE(parsed);
  EXPECT_THAT(parsed->Values("env"), ElementsAre("A=1", "B=2"));
  EXPECT_EQ(parsed->Value("env"), "B=2");
}

TEST(FlagsTest, UnknownFlagsAndMissingValuesAreErrors) {
  EXPECT_EQ(Parse({"--nope"}).error().message, "flag provided but not defined: \"--nope\"");
  EXPECT_EQ(Parse({"--bundle"}).error().message, "flag needs an argument: --bundle");
}

TEST(FlagsTest, ConsumedCountStopsBeforeTheVerb) {
  std::vector<std::string> args = {"--bundle=/x", "-d", "create", "--bundle", "y"};
  std::size_t consumed = 0;
  auto parsed = ParseFlags(kSpecs, args, &consumed);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(consumed, 2u);
  EXPECT_TRUE(parsed->positional.empty());
}

TEST(FlagsTest, CountsAreNonNegativeIntegers) {
  EXPECT_EQ(*Parse({})->Count("bundle"), 0);
  EXPECT_EQ(*Parse({"--bundle=3"})->Count("bundle"), 3);
  EXPECT_EQ(Parse({"--bundle=-1"})->Count("bundle").error().message,
            "--bundle: expected a count, got \"-1\"");
  EXPECT_FALSE(Parse({"--bundle=2x"})->Count("bundle"));
}

TEST(FlagsTest, HelpListsEveryFlag) {
  std::string help = FlagHelp(kSpecs);
  EXPECT_THAT(help, HasSubstr("--bundle DIR, -b DIR"));
  EXPECT_THAT(help, HasSubstr("--detach, -d"));
}

}  // namespace
}  // namespace vigil::cli
