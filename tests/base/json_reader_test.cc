#include "base/json/json_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace vigil::json {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(DocumentTest, ParsesEveryKind) {
  auto doc = Document::Parse(R"({"s": "x", "n": -12, "b": true, "z": null, "a": [1, 2], "o": {}})");
  ASSERT_TRUE(doc) << doc.error().message;
  Value root = doc->root();
  EXPECT_EQ(root.kind(), Kind::kObject);
  EXPECT_EQ(root.size(), 6u);
  EXPECT_EQ(root.Find("s")->AsString(), "x");
  EXPECT_EQ(root.Find("n")->NumberText(), "-12");
  EXPECT_EQ(root.Find("b")->AsBool(), true);
  EXPECT_TRUE(root.Find("z")->IsNull());
  EXPECT_EQ(root.Find("a")->size(), 2u);
  EXPECT_EQ(root.Find("a")->Element(1).NumberText(), "2");
  EXPECT_EQ(root.Find("o")->kind(), Kind::kObject);
  EXPECT_FALSE(root.Find("missing"));
}

TEST(DocumentTest, AccessorsOfTheWrongKindAreEmpty) {
  auto doc = Document::Parse(R"(["x"])");
  ASSERT_TRUE(doc);
  Value s = doc->root().Element(0);
  EXPECT_FALSE(s.AsBool());
  EXPECT_FALSE(s.NumberText());
  EXPECT_EQ(s.size(), 0u);
  EXPECT_FALSE(s.Find("x"));
}

TEST(DocumentTest, LastDuplicateKeyWins) {
  auto doc = Document::Parse(R"({"k": 1, "k": 2})");
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->root().Find("k")->NumberText(), "2");
}

TEST(DocumentTest, KeepsLargeNumbersExact) {
  auto doc = Document::Parse("[18446744073709551615]");
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->root().Element(0).NumberText(), "18446744073709551615");
}

TEST(DocumentTest, SyntaxErrorNamesTheByteOffset) {
  auto doc = Document::Parse("{\"a\": x}");
  ASSERT_FALSE(doc);
  EXPECT_THAT(doc.error().message, StartsWith("invalid JSON at byte "));
  EXPECT_EQ(doc.error().message.find('\n'), std::string::npos);
}

TEST(DocumentTest, RefusesEmptyAndTruncatedDocuments) {
  EXPECT_THAT(Document::Parse("").error().message, HasSubstr("document is empty"));
  EXPECT_THAT(Document::Parse("  \n").error().message, HasSubstr("document is empty"));
  EXPECT_FALSE(Document::Parse("{\"a\": [1, 2"));
  EXPECT_FALSE(Document::Parse("{} {}"));
}

TEST(DocumentTest, RefusesDeepNesting) {
  std::string deep(kMaxDepth + 1, '[');
  deep += std::string(kMaxDepth + 1, ']');
  auto doc = Document::Parse(deep);
  ASSERT_FALSE(doc);
  EXPECT_THAT(doc.error().message, HasSubstr("nested deeper than"));

  std::string ok(kMaxDepth, '[');
  ok += std::string(kMaxDepth, ']');
  EXPECT_TRUE(Document::Parse(ok));
}

TEST(DocumentTest, RefusesNulInStringsAndKeys) {
  EXPECT_THAT(Document::Parse(R"(["a\u0000b"])").error().message, HasSubstr("NUL"));
  EXPECT_THAT(Document::Parse(R"({"a\u0000": 1})").error().message, HasSubstr("NUL"));
  EXPECT_FALSE(Document::Parse(std::string("[\"a\0b\"]", 7)));
}

TEST(DocumentTest, RefusesInvalidUtf8) { EXPECT_FALSE(Document::Parse("[\"\xff\xfe\"]")); }

TEST(ValueTest, DescribeShowsKindAndValue) {
  auto doc = Document::Parse(R"(["1g", 1.5, true, null, {}, [], "a\"b"])");
  ASSERT_TRUE(doc);
  Value root = doc->root();
  EXPECT_EQ(root.Element(0).Describe(), R"(string "1g")");
  EXPECT_EQ(root.Element(1).Describe(), "number 1.5");
  EXPECT_EQ(root.Element(2).Describe(), "boolean true");
  EXPECT_EQ(root.Element(3).Describe(), "null");
  EXPECT_EQ(root.Element(4).Describe(), "object");
  EXPECT_EQ(root.Element(5).Describe(), "array");
  EXPECT_EQ(root.Element(6).Describe(), R"(string "a\"b")");
}

TEST(ValueTest, DescribeShortensLongStrings) {
  auto doc = Document::Parse("[\"" + std::string(200, 'x') + "\"]");
  ASSERT_TRUE(doc);
  EXPECT_LT(doc->root().Element(0).Describe().size(), 60u);
}

}  // namespace
}  // namespace vigil::json
