#include "base/log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "base/file.h"
#include "base/json/json_reader.h"

namespace vigil::log {
namespace {

using ::testing::HasSubstr;

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = "/tmp/vigil-log-test." + std::to_string(::getpid()); }
  void TearDown() override {
    ASSERT_TRUE(Configure({}));
    std::filesystem::remove(path_);
  }
  std::string path_;
};

TEST_F(LogTest, JsonLinesCarryLevelMessageAndTime) {
  ASSERT_TRUE(Configure({.file = path_, .format = Format::kJson, .min_level = Level::kWarning}));
  Error("container \"x\" does not exist");
  Info("not shown below the minimum level");
  std::string text = *ReadFile(path_, 4096);
  ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  auto doc = json::Document::Parse(text);
  ASSERT_TRUE(doc) << text;
  EXPECT_EQ(doc->root().Find("level")->AsString(), "error");
  EXPECT_EQ(doc->root().Find("msg")->AsString(), "container \"x\" does not exist");
  // RFC 3339 with nanoseconds, in UTC.
  EXPECT_TRUE(std::regex_match(std::string(*doc->root().Find("time")->AsString()),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z)")));
}

TEST_F(LogTest, TextLinesQuoteTheMessage) {
  ASSERT_TRUE(Configure({.file = path_, .format = Format::kText, .min_level = Level::kDebug}));
  Debug("two\nlines");
  std::string text = *ReadFile(path_, 4096);
  EXPECT_THAT(text, HasSubstr("level=debug msg=\"two\\nlines\"\n"));
  EXPECT_FALSE(LogsToStderr());
}

TEST_F(LogTest, AppendsToAnExistingFile) {
  ASSERT_TRUE(WriteFileAtomic(path_, "earlier\n", 0600, false));
  ASSERT_TRUE(Configure({.file = path_, .format = Format::kJson}));
  Warning("later");
  EXPECT_THAT(*ReadFile(path_, 4096), ::testing::StartsWith("earlier\n{"));
}

// The observer sees warnings and errors, whatever the minimum level, and
// not what it logs itself.
TEST_F(LogTest, TheObserverSeesWarningsAndErrorsOnce) {
  ASSERT_TRUE(Configure({.file = path_, .format = Format::kText, .min_level = Level::kError}));
  std::vector<std::string> seen;
  SetObserver([&](Level level, std::string_view message) {
    seen.push_back(std::string(level == Level::kError ? "error: " : "warning: ") +
                   std::string(message));
    Warning("from the observer");
  });
  Debug("debug");
  Info("info");
  Warning("a warning");
  Error("an error");
  SetObserver(nullptr);
  Error("after");
  EXPECT_THAT(seen, ::testing::ElementsAre("warning: a warning", "error: an error"));
  // The file keeps its own minimum level.
  const std::string text = *ReadFile(path_, 4096);
  EXPECT_THAT(text, HasSubstr("an error"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("a warning")));
  EXPECT_THAT(text, HasSubstr("after"));
}

TEST(LogFormatTest, AcceptsTextAndJsonOnly) {
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  EXPECT_EQ(*ParseFormat("text"), Format::kText);
  EXPECT_THAT(ParseFormat("xml").error().message, HasSubstr("invalid log format \"xml\""));
}

TEST(LogConfigureTest, UnwritableFileIsAnError) {
  auto r = Configure({.file = "/nonexistent-dir/log.json"});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("/nonexistent-dir/log.json"));
}

}  // namespace
}  // namespace vigil::log
