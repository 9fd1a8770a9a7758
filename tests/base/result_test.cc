#include "base/result.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "base/scope_guard.h"
#include "base/strings.h"

namespace vigil {
namespace {

Result<int> Half(int n) {
  if (n % 2 != 0) return Fail(StrCat(n, " is odd"));
  return n / 2;
}

Result<int> Quarter(int n) {
  ASSIGN_OR_RETURN(int half, Half(n));
  ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

Result<void> CheckQuarter(int n) {
  RETURN_IF_ERROR_WRAP(Quarter(n), StrCat("quarter of ", n));
  return {};
}

TEST(ResultTest, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).error().message, "3 is odd");
}

TEST(ResultTest, WrapAddsContextOutermostFirst) {
  EXPECT_TRUE(CheckQuarter(4));
  EXPECT_EQ(CheckQuarter(6).error().message, "quarter of 6: 3 is odd");
}

TEST(ResultTest, FailErrnoKeepsTheCodeAndNamesIt) {
  Result<void> r = FailErrno(ENOENT, "open /x");
  EXPECT_EQ(r.error().code, ENOENT);
  EXPECT_EQ(r.error().message, "open /x: No such file or directory");
  EXPECT_EQ(std::move(r).error().Wrap("create").code, ENOENT);
}

TEST(StrCatTest, JoinsStringsCharactersAndIntegers) {
  EXPECT_EQ(StrCat("a", 'b', std::string("c"), -1, 18446744073709551615ull),
            "abc-118446744073709551615");
}

TEST(QuoteTest, EscapesControlCharacters) {
  EXPECT_EQ(Quote("a\"b\\c\n\x01"), R"("a\"b\\c\n\u0001")");
}

TEST(ScopeGuardTest, RunsUnlessDismissed) {
  int runs = 0;
  {
    ScopeGuard guard([&] { ++runs; });
  }
  EXPECT_EQ(runs, 1);
  {
    ScopeGuard guard([&] { ++runs; });
    guard.Dismiss();
  }
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace vigil
