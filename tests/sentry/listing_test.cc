#include "sentry/table/listing.h"

#include <gtest/gtest.h>

#include "base/json/json_reader.h"
#include "base/strings.h"

namespace vigil::sentry {
namespace {

TEST(SyscallListing, TextNamesEverySyscallAndCountsTiers) {
  std::string text = SyscallListingText(std::nullopt);
  for (const SyscallEntry& entry : SyscallTable()) {
    EXPECT_NE(text.find(StrCat("\n", entry.number, " ")), std::string::npos) << entry.name;
  }
  EXPECT_NE(text.find(StrCat(SyscallTable().size(), " syscalls: ")), std::string::npos);
}

TEST(SyscallListing, TierFilterKeepsOnlyThatTier) {
  std::string denied = SyscallListingText(Tier::kDenied);
  EXPECT_NE(denied.find(" ptrace "), std::string::npos);
  EXPECT_EQ(denied.find(" getppid "), std::string::npos);
  EXPECT_NE(denied.find("EPERM"), std::string::npos);
}

TEST(SyscallListing, JsonIsAnArrayOfEveryEntry) {
  Result<json::Document> doc = json::Document::Parse(SyscallListingJson(std::nullopt));
  ASSERT_TRUE(doc) << doc.error().message;
  json::Value root = doc->root();
  ASSERT_EQ(root.kind(), json::Kind::kArray);
  EXPECT_EQ(root.size(), SyscallTable().size());
  // Each scoped entry says when it reaches the sentry: a lookup only where
  // the policy decides or audits reads.
  int checked = 0;
  for (std::size_t i = 0; i < root.size(); ++i) {
    json::Value entry = root.Element(i);
    std::optional<json::Value> name = entry.Find("name");
    std::optional<json::Value> when = entry.Find("mediatedWhen");
    if (!name || !when) continue;
    if (name->AsString() == "newfstatat") {
      EXPECT_EQ(when->AsString(), "the policy hides or denies files, or audits every read");
      ++checked;
    }
    if (name->AsString() == "mkdir") {
      EXPECT_EQ(when->AsString(), "the policy restricts files");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
}

TEST(SyscallListing, ParseTier) {
  EXPECT_EQ(ParseTier("mediated"), Tier::kMediated);
  EXPECT_EQ(ParseTier("Mediated"), std::nullopt);
}

}  // namespace
}  // namespace vigil::sentry
