#include "config/oci/codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/strings.h"
#include "config/oci/config.h"
#include "config/oci/enums.h"
#include "config/oci/names.h"

namespace vigil::config {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

// Decodes the JSON text `value` into a T, as the member at path "v".
template <typename T>
Result<T> DecodeValue(std::string_view value) {
  // Wrapped in an array so that any value, scalars included, is a document.
  ASSIGN_OR_RETURN(json::Document doc, json::Document::Parse(StrCat("[", value, "]")));
  T out{};
  RETURN_IF_ERROR(Decode(doc.root().Element(0), JsonPath().Key("v"), out));
  return out;
}

// The error message of decoding `value` into a T, or "" if it decoded.
template <typename T>
std::string DecodeError(std::string_view value) {
  Result<T> result = DecodeValue<T>(value);
  return result ? "" : result.error().message;
}

// The error message of ParseSpec(text), or "" if it parsed.
std::string SpecError(std::string_view text) {
  Result<Spec> spec = ParseSpec(text);
  return spec ? "" : spec.error().message;
}

// ---- A struct of our own, to show the field-table rules in isolation -------

struct Sample {
  std::string name;
  std::optional<std::int64_t> count;
  std::vector<std::string> tags;
  std::map<std::string, std::string> labels;
  bool flag = false;
  std::uint32_t number = 0;
  bool operator==(const Sample&) const = default;
};

constexpr Field<Sample> kSampleFields[] = {
    Required<&Sample::name>("name"), Bind<&Sample::count>("count"), Bind<&Sample::tags>("tags"),
    Bind<&Sample::labels>("labels"), Bind<&Sample::flag>("flag"),   Bind<&Sample::number>("number"),
};

Result<Sample> DecodeSample(std::string_view text) {
  ASSIGN_OR_RETURN(json::Document doc, json::Document::Parse(text));
  Sample out;
  RETURN_IF_ERROR(DecodeObject<Sample>(doc.root(), JsonPath(), kSampleFields, out));
  return out;
}

std::string EncodeSample(const Sample& sample) {
  json::Writer w;
  EncodeObject<Sample>(w, kSampleFields, sample);
  return w.Take();
}

TEST(FieldTableTest, DecodesListedProperties) {
  auto s = DecodeSample(
      R"({"name": "a", "count": -3, "tags": ["x", "y"], "labels": {"k": "v"}, "flag": true,
          "number": 7})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->name, "a");
  EXPECT_EQ(s->count, -3);
  EXPECT_EQ(s->tags, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(s->labels, (std::map<std::string, std::string>{{"k", "v"}}));
  EXPECT_TRUE(s->flag);
  EXPECT_EQ(s->number, 7u);
}

TEST(FieldTableTest, IgnoresPropertiesTheTableDoesNotList) {
  auto s = DecodeSample(R"({"name": "a", "future": {"x": [1, 2]}, "Name": 5})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s, Sample{.name = "a"});
}

TEST(FieldTableTest, AbsentOptionalPropertiesKeepTheirDefaults) {
  auto s = DecodeSample(R"({"name": "a"})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_FALSE(s->count.has_value());
  EXPECT_TRUE(s->tags.empty());
  EXPECT_FALSE(s->flag);
}

TEST(FieldTableTest, NullReadsAsAbsent) {
  auto s = DecodeSample(
      R"({"name": "a", "count": null, "tags": null, "labels": null, "flag": null,
          "number": null})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s, Sample{.name = "a"});
}

TEST(FieldTableTest, MissingRequiredPropertyIsAnError) {
  EXPECT_EQ(DecodeSample(R"({"count": 1})").error().message, "name: required property is missing");
}

TEST(FieldTableTest, RequiredPropertyGivenNullIsAnError) {
  EXPECT_EQ(DecodeSample(R"({"name": null})").error().message, "name: required property is null");
}

TEST(FieldTableTest, NonObjectIsAnError) {
  EXPECT_EQ(DecodeSample("[]").error().message, "(root): expected object, got array");
  EXPECT_EQ(DecodeSample("null").error().message, "(root): expected object, got null");
}

TEST(FieldTableTest, LastDuplicateKeyWins) {
  auto s = DecodeSample(R"({"name": "first", "count": 1, "name": "last", "count": 2})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->name, "last");
  EXPECT_EQ(s->count, 2);
}

TEST(FieldTableTest, OnlyTheLastDuplicateIsDecoded) {
  // The earlier value is not even type-checked: it is overridden.
  auto s = DecodeSample(R"({"name": 5, "name": "ok"})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->name, "ok");
  EXPECT_EQ(DecodeSample(R"({"name": "ok", "name": 5})").error().message,
            "name: expected string, got number 5");
}

TEST(FieldTableTest, EncodeSkipsEmptyOptionalMembers) {
  EXPECT_EQ(EncodeSample(Sample{}), R"({"name":"","number":0})");
}

TEST(FieldTableTest, EncodeWritesEveryMemberThatHoldsAValue) {
  Sample s{.name = "a",
           .count = 0,
           .tags = {"t"},
           .labels = {{"b", "2"}, {"a", "1"}},
           .flag = true,
           .number = 4};
  EXPECT_EQ(EncodeSample(s),
            R"({"name":"a","count":0,"tags":["t"],"labels":{"a":"1","b":"2"},"flag":true,)"
            R"("number":4})");
  auto again = DecodeSample(EncodeSample(s));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, s);
}

// ---- Integers ---------------------------------------------------------------

TEST(IntegerTest, AcceptsPlainIntegers) {
  EXPECT_EQ(DecodeValue<std::int64_t>("-12"), -12);
  EXPECT_EQ(DecodeValue<std::int64_t>("0"), 0);
  EXPECT_EQ(DecodeValue<std::int64_t>("-0"), 0);
  EXPECT_EQ(DecodeValue<std::uint32_t>("12"), 12u);
}

TEST(IntegerTest, RefusesFractionsEvenWhenWhole) {
  EXPECT_EQ(DecodeError<std::int64_t>("1.0"), "v: expected integer, got number 1.0");
  EXPECT_EQ(DecodeError<std::int64_t>("1.5"), "v: expected integer, got number 1.5");
  EXPECT_EQ(DecodeError<std::uint64_t>("2.0"), "v: expected unsigned integer, got number 2.0");
  EXPECT_EQ(DecodeError<std::int32_t>("-0.0"), "v: expected 32-bit integer, got number -0.0");
}

TEST(IntegerTest, RefusesExponents) {
  EXPECT_EQ(DecodeError<std::int64_t>("1e3"), "v: expected integer, got number 1e3");
  EXPECT_EQ(DecodeError<std::int64_t>("1E3"), "v: expected integer, got number 1E3");
  EXPECT_EQ(DecodeError<std::uint32_t>("1e+2"),
            "v: expected unsigned 32-bit integer, got number 1e+2");
  EXPECT_EQ(DecodeError<std::uint16_t>("5e-1"),
            "v: expected unsigned 16-bit integer, got number 5e-1");
}

TEST(IntegerTest, UnsignedRefusesNegatives) {
  EXPECT_EQ(DecodeError<std::uint64_t>("-1"), "v: expected unsigned integer, got number -1");
  EXPECT_EQ(DecodeError<std::uint32_t>("-1"), "v: expected unsigned 32-bit integer, got number -1");
  EXPECT_EQ(DecodeError<std::uint16_t>("-1"), "v: expected unsigned 16-bit integer, got number -1");
  EXPECT_EQ(DecodeError<std::uint32_t>("-0"), "v: expected unsigned 32-bit integer, got number -0");
}

TEST(IntegerTest, Uint16AcceptsItsRangeExactly) {
  EXPECT_EQ(DecodeValue<std::uint16_t>("0"), 0u);
  EXPECT_EQ(DecodeValue<std::uint16_t>("65535"), 65535u);
  EXPECT_EQ(DecodeError<std::uint16_t>("65536"),
            "v: expected unsigned 16-bit integer in [0, 65535], got number 65536");
}

TEST(IntegerTest, Uint32AcceptsItsRangeExactly) {
  EXPECT_EQ(DecodeValue<std::uint32_t>("4294967295"), 4294967295u);
  EXPECT_EQ(DecodeError<std::uint32_t>("4294967296"),
            "v: expected unsigned 32-bit integer in [0, 4294967295], got number 4294967296");
}

TEST(IntegerTest, Int32AcceptsItsRangeExactly) {
  EXPECT_EQ(DecodeValue<std::int32_t>("-2147483648"), INT32_MIN);
  EXPECT_EQ(DecodeValue<std::int32_t>("2147483647"), INT32_MAX);
  EXPECT_EQ(DecodeError<std::int32_t>("2147483648"),
            "v: expected 32-bit integer in [-2147483648, 2147483647], got number 2147483648");
  EXPECT_EQ(DecodeError<std::int32_t>("-2147483649"),
            "v: expected 32-bit integer in [-2147483648, 2147483647], got number -2147483649");
}

TEST(IntegerTest, Int64AcceptsItsRangeExactly) {
  EXPECT_EQ(DecodeValue<std::int64_t>("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(DecodeValue<std::int64_t>("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(DecodeError<std::int64_t>("9223372036854775808"),
            "v: expected integer in [-9223372036854775808, 9223372036854775807], "
            "got number 9223372036854775808");
  EXPECT_EQ(DecodeError<std::int64_t>("-9223372036854775809"),
            "v: expected integer in [-9223372036854775808, 9223372036854775807], "
            "got number -9223372036854775809");
}

TEST(IntegerTest, Uint64AcceptsItsRangeExactly) {
  EXPECT_EQ(DecodeValue<std::uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(DecodeError<std::uint64_t>("18446744073709551616"),
            "v: expected unsigned integer in [0, 18446744073709551615], "
            "got number 18446744073709551616");
}

TEST(IntegerTest, FarOutOfRangeIsRefusedNotWrapped) {
  EXPECT_THAT(DecodeError<std::uint64_t>("99999999999999999999999999"),
              HasSubstr("got number 99999999999999999999999999"));
  EXPECT_THAT(DecodeError<std::int32_t>("99999999999999999999999999"),
              HasSubstr("expected 32-bit integer in"));
}

TEST(IntegerTest, RefusesOtherKinds) {
  EXPECT_EQ(DecodeError<std::int64_t>(R"("1g")"), R"(v: expected integer, got string "1g")");
  EXPECT_EQ(DecodeError<std::int64_t>(R"("12")"), R"(v: expected integer, got string "12")");
  EXPECT_EQ(DecodeError<std::uint32_t>("true"),
            "v: expected unsigned 32-bit integer, got boolean true");
  EXPECT_EQ(DecodeError<std::int32_t>("[1]"), "v: expected 32-bit integer, got array");
  EXPECT_EQ(DecodeError<std::uint16_t>("{}"), "v: expected unsigned 16-bit integer, got object");
  EXPECT_EQ(DecodeError<std::uint64_t>("null"), "v: expected unsigned integer, got null");
}

// ---- Other scalars and containers -------------------------------------------

TEST(ScalarTest, BooleanAcceptsOnlyTrueAndFalse) {
  EXPECT_EQ(DecodeValue<bool>("true"), true);
  EXPECT_EQ(DecodeValue<bool>("false"), false);
  EXPECT_EQ(DecodeError<bool>(R"("true")"), R"(v: expected boolean, got string "true")");
  EXPECT_EQ(DecodeError<bool>("1"), "v: expected boolean, got number 1");
}

TEST(ScalarTest, StringAcceptsOnlyStrings) {
  EXPECT_EQ(DecodeValue<std::string>(R"("a\"b\u00e9")"), "a\"b\xc3\xa9");
  EXPECT_EQ(DecodeError<std::string>("5"), "v: expected string, got number 5");
  EXPECT_EQ(DecodeError<std::string>("false"), "v: expected string, got boolean false");
  EXPECT_EQ(DecodeError<std::string>("[]"), "v: expected string, got array");
}

TEST(ScalarTest, LongStringsAreShortenedInMessages) {
  EXPECT_EQ(DecodeError<std::int64_t>(StrCat("\"", std::string(50, 'x'), "\"")),
            StrCat("v: expected integer, got string \"", std::string(40, 'x'), "\"..."));
}

TEST(ScalarTest, ShortenedStringsAreCutBetweenCharacters) {
  // 39 ASCII bytes, then two 2-byte characters: byte 40 is the middle of the first.
  std::string a39(39, 'a');
  EXPECT_THAT(DecodeError<std::int64_t>(StrCat("\"", a39, "\u00e9\u00e9\"")),
              AnyOf(StrCat("v: expected integer, got string \"", a39, "\"..."),
                    StrCat("v: expected integer, got string \"", a39, "\xc3\xa9\"...")));
}

TEST(ScalarTest, ControlCharactersInMessagesAreEscaped) {
  EXPECT_EQ(DecodeError<std::int64_t>(R"("a\nb")"), R"(v: expected integer, got string "a\nb")");
}

TEST(ContainerTest, ArrayOfWrongKindIsAnError) {
  EXPECT_EQ(DecodeError<std::vector<std::string>>("{}"), "v: expected array, got object");
  EXPECT_EQ(DecodeError<std::vector<std::string>>(R"("a")"),
            R"(v: expected array, got string "a")");
}

TEST(ContainerTest, ArrayElementErrorsNameTheIndex) {
  EXPECT_EQ(DecodeError<std::vector<std::string>>(R"(["a", "b", 3])"),
            "v[2]: expected string, got number 3");
  EXPECT_EQ(DecodeError<std::vector<std::string>>(R"(["a", null])"),
            "v[1]: expected string, got null");
}

TEST(ContainerTest, MapOfWrongKindIsAnError) {
  EXPECT_EQ((DecodeError<std::map<std::string, std::string>>("[]")),
            "v: expected object, got array");
}

TEST(ContainerTest, MapValueErrorsNameTheKey) {
  EXPECT_EQ((DecodeError<std::map<std::string, std::string>>(R"({"a": "1", "b.c": 2})")),
            R"(v["b.c"]: expected string, got number 2)");
}

TEST(ContainerTest, MapKeepsTheLastDuplicateKey) {
  auto m = DecodeValue<std::map<std::string, std::string>>(R"({"a": "1", "a": "2"})");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(*m, (std::map<std::string, std::string>{{"a", "2"}}));
}

// ---- Enums ------------------------------------------------------------------

TEST(EnumTest, NamespaceTypeAcceptsEverySpecName) {
  const std::pair<std::string_view, NamespaceType> kCases[] = {
      {"pid", NamespaceType::kPid},       {"network", NamespaceType::kNetwork},
      {"mount", NamespaceType::kMount},   {"ipc", NamespaceType::kIpc},
      {"uts", NamespaceType::kUts},       {"user", NamespaceType::kUser},
      {"cgroup", NamespaceType::kCgroup}, {"time", NamespaceType::kTime},
  };
  for (const auto& [name, type] : kCases) {
    EXPECT_EQ(DecodeValue<NamespaceType>(StrCat("\"", name, "\"")), type) << name;
  }
}

TEST(EnumTest, UnknownNamespaceTypeListsTheChoices) {
  EXPECT_EQ(DecodeError<NamespaceType>(R"("net")"),
            R"(v: unknown value "net"; expected one of pid, network, mount, ipc, uts, user, )"
            "cgroup, time");
}

TEST(EnumTest, EnumNamesAreCaseSensitive) {
  EXPECT_THAT(DecodeError<NamespaceType>(R"("PID")"), HasSubstr(R"(unknown value "PID")"));
  EXPECT_THAT(DecodeError<SeccompAction>(R"("scmp_act_allow")"),
              HasSubstr(R"(unknown value "scmp_act_allow")"));
}

TEST(EnumTest, EnumOfWrongKindIsAnError) {
  EXPECT_EQ(DecodeError<NamespaceType>("0"), "v: expected string, got number 0");
}

TEST(EnumTest, SeccompActionAcceptsEverySpecName) {
  for (std::string_view name :
       {"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
        "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY"}) {
    auto action = DecodeValue<SeccompAction>(StrCat("\"", name, "\""));
    ASSERT_TRUE(action) << action.error().message;
    EXPECT_EQ(NameOf(*action), name);
  }
}

TEST(EnumTest, UnknownSeccompActionListsTheChoices) {
  EXPECT_EQ(DecodeError<SeccompAction>(R"("SCMP_ACT_DENY")"),
            R"(v: unknown value "SCMP_ACT_DENY"; expected one of SCMP_ACT_KILL, )"
            "SCMP_ACT_KILL_PROCESS, SCMP_ACT_KILL_THREAD, SCMP_ACT_TRAP, SCMP_ACT_ERRNO, "
            "SCMP_ACT_TRACE, SCMP_ACT_ALLOW, SCMP_ACT_LOG, SCMP_ACT_NOTIFY");
}

TEST(EnumTest, SeccompOperatorAcceptsEverySpecName) {
  for (std::string_view name : {"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ",
                                "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"}) {
    auto op = DecodeValue<SeccompOperator>(StrCat("\"", name, "\""));
    ASSERT_TRUE(op) << op.error().message;
    EXPECT_EQ(NameOf(*op), name);
  }
}

TEST(EnumTest, UnknownSeccompOperatorListsTheChoices) {
  EXPECT_EQ(DecodeError<SeccompOperator>(R"("SCMP_CMP_XX")"),
            R"(v: unknown value "SCMP_CMP_XX"; expected one of SCMP_CMP_NE, SCMP_CMP_LT, )"
            "SCMP_CMP_LE, SCMP_CMP_EQ, SCMP_CMP_GE, SCMP_CMP_GT, SCMP_CMP_MASKED_EQ");
}

TEST(EnumTest, EncodeWritesTheSpecName) {
  json::Writer w;
  w.BeginArray();
  Encode(w, NamespaceType::kNetwork);
  Encode(w, SeccompAction::kKillProcess);
  Encode(w, SeccompOperator::kMaskedEqual);
  w.EndArray();
  EXPECT_EQ(w.Take(), R"(["network","SCMP_ACT_KILL_PROCESS","SCMP_CMP_MASKED_EQ"])");
}

// ---- Name tables ------------------------------------------------------------

TEST(NameTableTest, UnknownNameMessageListsShortTables) {
  EXPECT_EQ(UnknownNameMessage("x", {"a", "b"}), R"(unknown value "x"; expected one of a, b)");
}

TEST(NameTableTest, UnknownNameMessageOmitsLongTables) {
  EXPECT_EQ(UnknownNameMessage("CAP_FOO", NamesOf(kCapabilityNames)), R"(unknown value "CAP_FOO")");
}

TEST(NameTableTest, SixteenNamesAreStillListed) {
  std::vector<std::string_view> sixteen(16, "n");
  EXPECT_THAT(UnknownNameMessage("x", sixteen), HasSubstr("expected one of"));
  sixteen.push_back("n");
  EXPECT_THAT(UnknownNameMessage("x", sixteen), Not(HasSubstr("expected one of")));
}

TEST(NameTableTest, CheckNamesAcceptsEveryEntry) {
  for (const NamedValue& entry : kCapabilityNames) {
    EXPECT_TRUE(CheckNames(JsonPath(), std::string(entry.name), kCapabilityNames)) << entry.name;
  }
  for (const NamedValue& entry : kRlimitNames) {
    EXPECT_TRUE(CheckNames(JsonPath(), std::string(entry.name), kRlimitNames)) << entry.name;
  }
  for (const NamedValue& entry : kSeccompArchNames) {
    EXPECT_TRUE(CheckNames(JsonPath(), std::string(entry.name), kSeccompArchNames)) << entry.name;
  }
}

TEST(NameTableTest, CheckNamesNamesTheIndexOfTheBadEntry) {
  auto result = CheckNames(JsonPath().Key("caps"), std::vector<std::string>{"CAP_KILL", "KILL"},
                           kCapabilityNames);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, R"(caps[1]: unknown value "KILL")");
}

// Every closed set, through ParseSpec, with the message a user would see.

constexpr std::string_view kSpecStart = R"({"ociVersion": "1.2.0", )";

std::string ProcessWith(std::string_view members) {
  return StrCat(kSpecStart, R"("process": {"cwd": "/", )", members, "}}");
}

std::string LinuxWith(std::string_view members) {
  return StrCat(kSpecStart, R"("linux": {)", members, "}}");
}

TEST(NameTableTest, UnknownCapability) {
  EXPECT_EQ(SpecError(ProcessWith(R"("capabilities": {"bounding": ["CAP_KILL", "CAP_FOO"]})")),
            R"(process.capabilities.bounding[1]: unknown value "CAP_FOO")");
  EXPECT_EQ(SpecError(ProcessWith(R"("capabilities": {"ambient": ["cap_kill"]})")),
            R"(process.capabilities.ambient[0]: unknown value "cap_kill")");
}

TEST(NameTableTest, EveryCapabilitySetIsChecked) {
  for (std::string_view set : {"bounding", "effective", "inheritable", "permitted", "ambient"}) {
    EXPECT_EQ(SpecError(ProcessWith(StrCat(R"("capabilities": {")", set, R"(": ["X"]})"))),
              StrCat("process.capabilities.", set, R"([0]: unknown value "X")"));
  }
}

TEST(NameTableTest, UnknownRlimit) {
  EXPECT_EQ(SpecError(ProcessWith(R"("rlimits": [{"type": "RLIMIT_FOO", "hard": 1, "soft": 1}])")),
            R"(process.rlimits[0].type: unknown value "RLIMIT_FOO"; expected one of RLIMIT_AS, )"
            R"(RLIMIT_CORE, RLIMIT_CPU, RLIMIT_DATA, RLIMIT_FSIZE, RLIMIT_LOCKS, RLIMIT_MEMLOCK, )"
            R"(RLIMIT_MSGQUEUE, RLIMIT_NICE, RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_RSS, )"
            R"(RLIMIT_RTPRIO, RLIMIT_RTTIME, RLIMIT_SIGPENDING, RLIMIT_STACK)");
}

TEST(NameTableTest, UnknownSeccompArchitecture) {
  EXPECT_EQ(SpecError(LinuxWith(
                R"("seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
                         "architectures": ["SCMP_ARCH_X86_64", "x86_64"]})")),
            R"(linux.seccomp.architectures[1]: unknown value "x86_64")");
}

TEST(NameTableTest, UnknownSeccompFlagListsTheChoices) {
  EXPECT_EQ(
      SpecError(LinuxWith(R"("seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "flags": ["TSYNC"]})")),
      R"(linux.seccomp.flags[0]: unknown value "TSYNC"; expected one of )"
      "SECCOMP_FILTER_FLAG_TSYNC, SECCOMP_FILTER_FLAG_LOG, SECCOMP_FILTER_FLAG_SPEC_ALLOW, "
      "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV");
}

TEST(NameTableTest, UnknownRootfsPropagationListsTheChoices) {
  EXPECT_EQ(SpecError(LinuxWith(R"("rootfsPropagation": "recursive")")),
            R"(linux.rootfsPropagation: unknown value "recursive"; expected one of shared, )"
            "rshared, slave, rslave, private, rprivate, unbindable, runbindable");
}

TEST(NameTableTest, EmptyRootfsPropagationMeansUnset) {
  auto spec = ParseSpec(LinuxWith(R"("rootfsPropagation": "")"));
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->rootfs_propagation, "");
}

TEST(NameTableTest, UnknownDeviceTypeListsTheChoices) {
  EXPECT_EQ(SpecError(LinuxWith(R"("devices": [{"type": "x", "path": "/dev/x"}])")),
            R"(linux.devices[0].type: unknown value "x"; expected one of c, b, u, p)");
  // A device node needs a type: the empty string is not one.
  EXPECT_EQ(SpecError(LinuxWith(R"("devices": [{"type": "", "path": "/dev/x"}])")),
            R"(linux.devices[0].type: unknown value ""; expected one of c, b, u, p)");
}

TEST(NameTableTest, UnknownCgroupDeviceTypeListsTheChoices) {
  EXPECT_EQ(SpecError(LinuxWith(R"("resources": {"devices": [{"allow": true, "type": "u"}]})")),
            R"(linux.resources.devices[0].type: unknown value "u"; expected one of a, c, b)");
}

TEST(NameTableTest, EmptyCgroupDeviceTypeMeansAll) {
  auto spec = ParseSpec(LinuxWith(R"("resources": {"devices": [{"allow": false, "type": ""}]})"));
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->devices.at(0).type, "");
}

TEST(NameTableTest, UnknownSchedulerPolicyAndFlag) {
  EXPECT_EQ(SpecError(ProcessWith(R"("scheduler": {"policy": "SCHED_NORMAL"})")),
            R"(process.scheduler.policy: unknown value "SCHED_NORMAL"; expected one of )"
            "SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_ISO, SCHED_IDLE, "
            "SCHED_DEADLINE");
  EXPECT_EQ(SpecError(ProcessWith(R"("scheduler": {"policy": "SCHED_OTHER", "flags": ["RESET"]})")),
            R"(process.scheduler.flags[0]: unknown value "RESET"; expected one of )"
            "SCHED_FLAG_RESET_ON_FORK, SCHED_FLAG_RECLAIM, SCHED_FLAG_DL_OVERRUN, "
            "SCHED_FLAG_KEEP_POLICY, SCHED_FLAG_KEEP_PARAMS, SCHED_FLAG_UTIL_CLAMP_MIN, "
            "SCHED_FLAG_UTIL_CLAMP_MAX");
}

TEST(NameTableTest, UnknownIoPriorityClass) {
  EXPECT_EQ(SpecError(ProcessWith(R"("ioPriority": {"class": "IOPRIO_CLASS_NONE"})")),
            R"(process.ioPriority.class: unknown value "IOPRIO_CLASS_NONE"; expected one of )"
            "IOPRIO_CLASS_RT, IOPRIO_CLASS_BE, IOPRIO_CLASS_IDLE");
}

TEST(NameTableTest, UnknownPersonalityDomain) {
  EXPECT_EQ(SpecError(LinuxWith(R"("personality": {"domain": "BSD"})")),
            R"(linux.personality.domain: unknown value "BSD"; expected one of LINUX, LINUX32)");
}

TEST(NameTableTest, NameOfTheWrongKindIsATypeError) {
  EXPECT_EQ(SpecError(ProcessWith(R"("capabilities": {"bounding": "CAP_KILL"})")),
            R"(process.capabilities.bounding: expected array, got string "CAP_KILL")");
  EXPECT_EQ(SpecError(ProcessWith(R"("rlimits": [{"type": 7, "hard": 1, "soft": 1}])")),
            "process.rlimits[0].type: expected string, got number 7");
}

// ---- The same rules as a user meets them ------------------------------------

TEST(SpecMessageTest, MemoryLimitGivenAsString) {
  EXPECT_EQ(SpecError(LinuxWith(R"("resources": {"memory": {"limit": "1g"}})")),
            R"(linux.resources.memory.limit: expected integer, got string "1g")");
}

TEST(SpecMessageTest, NegativeUid) {
  EXPECT_EQ(SpecError(ProcessWith(R"("user": {"uid": -1, "gid": 0})")),
            "process.user.uid: expected unsigned 32-bit integer, got number -1");
}

TEST(SpecMessageTest, BlkioWeightPastUint16) {
  EXPECT_EQ(SpecError(LinuxWith(R"("resources": {"blockIO": {"weight": 70000}})")),
            "linux.resources.blockIO.weight: expected unsigned 16-bit integer in [0, 65535], "
            "got number 70000");
}

TEST(SpecMessageTest, OomScoreAdjWithFraction) {
  EXPECT_EQ(SpecError(ProcessWith(R"("oomScoreAdj": 1.5)")),
            "process.oomScoreAdj: expected 32-bit integer, got number 1.5");
}

TEST(SpecMessageTest, UnknownNamespaceType) {
  EXPECT_EQ(SpecError(LinuxWith(R"("namespaces": [{"type": "pid"}, {"type": "net"}])")),
            R"(linux.namespaces[1].type: unknown value "net"; expected one of pid, network, )"
            "mount, ipc, uts, user, cgroup, time");
}

TEST(SpecMessageTest, UnknownSeccompAction) {
  EXPECT_THAT(SpecError(LinuxWith(R"("seccomp": {"defaultAction": "ALLOW"})")),
              HasSubstr(R"(linux.seccomp.defaultAction: unknown value "ALLOW"; expected one of )"));
}

TEST(SpecMessageTest, MissingOciVersion) {
  EXPECT_EQ(SpecError(R"({"process": {"cwd": "/"}})"), "ociVersion: required property is missing");
  EXPECT_EQ(SpecError(R"({"ociVersion": null})"), "ociVersion: required property is null");
}

TEST(SpecMessageTest, MissingRequiredNestedProperty) {
  EXPECT_EQ(SpecError(StrCat(kSpecStart, R"("process": {"args": ["sh"]}})")),
            "process.cwd: required property is missing");
  EXPECT_EQ(SpecError(LinuxWith(R"("uidMappings": [{"containerID": 0, "hostID": 1000}])")),
            "linux.uidMappings[0].size: required property is missing");
}

TEST(SpecMessageTest, ObjectWhereAnArrayBelongs) {
  EXPECT_EQ(SpecError(StrCat(kSpecStart, R"("mounts": {"destination": "/proc"}})")),
            "mounts: expected array, got object");
}

TEST(SpecMessageTest, ArrayWhereAnObjectBelongs) {
  EXPECT_EQ(SpecError(StrCat(kSpecStart, R"("process": []})")),
            "process: expected object, got array");
}

TEST(SpecMessageTest, NumberWhereAStringBelongs) {
  EXPECT_EQ(SpecError(StrCat(kSpecStart, R"("hostname": 42})")),
            "hostname: expected string, got number 42");
}

TEST(SpecMessageTest, NullsAreSkippedThroughoutTheDocument) {
  auto spec = ParseSpec(
      R"({"ociVersion": "1.2.0", "root": null, "mounts": null, "process": null, "hostname": null,
          "hooks": null, "annotations": null,
          "linux": {"resources": {"memory": {"limit": null}}}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_FALSE(spec->root);
  EXPECT_FALSE(spec->process);
  EXPECT_FALSE(spec->hooks);
  ASSERT_TRUE(spec->linux_spec->resources->memory);
  EXPECT_FALSE(spec->linux_spec->resources->memory->limit);
}

TEST(SpecMessageTest, NotJsonAtAll) {
  EXPECT_THAT(SpecError("{"), HasSubstr("invalid JSON at byte"));
  EXPECT_EQ(SpecError(R"(["ociVersion"])"), "(root): expected object, got array");
}

TEST(SpecMessageTest, LastDuplicateKeyWinsInADocument) {
  auto spec = ParseSpec(R"({"ociVersion": "1.0.0", "hostname": "a", "ociVersion": "1.2.0",
                            "hostname": "b"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->oci_version, "1.2.0");
  EXPECT_EQ(spec->hostname, "b");
}

TEST(SpecMessageTest, LastDuplicateObjectReplacesTheEarlierWhole) {
  auto spec = ParseSpec(R"({"ociVersion": "1.2.0", "root": {"path": "a", "readonly": true},
                            "root": {"path": "b"}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->root, Root{.path = "b"});
}

TEST(SpecMessageTest, LastDuplicateMapEntryWinsWhole) {
  auto spec = ParseSpec(
      LinuxWith(R"("timeOffsets": {"monotonic": {"secs": 5}, "monotonic": {"nanosecs": 7}})"));
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->time_offsets.at("monotonic"), (TimeOffset{.secs = 0, .nanosecs = 7}));
}

}  // namespace
}  // namespace vigil::config
