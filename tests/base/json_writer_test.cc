#include "base/json/json_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "base/json/json_reader.h"

namespace vigil::json {
namespace {

TEST(WriterTest, WritesCompactDocuments) {
  Writer w;
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(-1);
  w.Int(std::numeric_limits<std::int64_t>::min());
  w.Uint(std::numeric_limits<std::uint64_t>::max());
  w.Bool(false);
  w.Null();
  w.String("q\"\n");
  w.EndArray();
  w.EndObject();
  EXPECT_EQ(w.Take(), R"({"a":[-1,-9223372036854775808,18446744073709551615,false,null,"q\"\n"]})");
}

TEST(WriterTest, MembersAreAKeyAndItsValue) {
  Writer w;
  w.BeginObject();
  w.StringMember("s", "v");
  w.IntMember("i", -2);
  w.UintMember("u", std::numeric_limits<std::uint64_t>::max());
  w.BoolMember("b", true);
  w.EndObject();
  EXPECT_EQ(w.Take(), R"({"s":"v","i":-2,"u":18446744073709551615,"b":true})");
}

TEST(WriterTest, PrettyOutputParsesBack) {
  Writer w(Writer::Style::kPretty);
  w.BeginObject();
  w.Key("k");
  w.String("v");
  w.EndObject();
  std::string text = w.Take();
  EXPECT_NE(text.find('\t'), std::string::npos);
  auto doc = Document::Parse(text);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->root().Find("k")->AsString(), "v");
}

TEST(WriterTest, ResetStartsAFreshDocumentInTheSameWriter) {
  Writer w;
  w.BeginObject();
  w.Key("first");
  w.Int(1);
  w.EndObject();
  EXPECT_EQ(w.View(), R"({"first":1})");
  w.Reset();
  EXPECT_EQ(w.View(), "");
  w.BeginArray();  // a complete document before: yajl would refuse this without Reset
  w.String("second");
  w.EndArray();
  EXPECT_EQ(w.View(), R"(["second"])");
}

TEST(WriterTest, InvalidUtf8BecomesParseableAscii) {
  Writer w;
  w.BeginArray();
  w.String("ok\xff\xfe");
  w.EndArray();
  std::string text = w.Take();
  auto doc = Document::Parse(text);
  ASSERT_TRUE(doc) << text;
  EXPECT_EQ(doc->root().Element(0).AsString(), "ok??");
}

}  // namespace
}  // namespace vigil::json
