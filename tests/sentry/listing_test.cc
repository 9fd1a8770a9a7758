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
}

TEST(SyscallListing, ParseTier) {
  EXPECT_EQ(ParseTier("mediated"), Tier::kMediated);
  EXPECT_EQ(ParseTier("Mediated"), std::nullopt);
}

}  // namespace
}  // namespace vigil::sentry
