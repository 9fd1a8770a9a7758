// An exec's arguments in its audit record: shell-quoted, bounded, counted.
#include "sentry/handlers/exec_argv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sentry/core/sandbox.h"
#include "tests/sentry/fake_tracee.h"

namespace vigil::sentry {
namespace {

class ExecArgvTest : public ::testing::Test {
 protected:
  static constexpr std::uint64_t kArgv = FakeTracee::kBase;

  // Lays `args` out as an exec's argv (pointers, then the strings) in the
  // fake memory and returns what AuditArgv records for it.
  AuditArgs Audit(const std::vector<std::string>& args) {
    std::uint64_t text = kArgv + (args.size() + 1) * sizeof(std::uint64_t);
    for (std::size_t i = 0; i < args.size(); ++i) {
      EXPECT_TRUE(tracee_.WriteObject(kArgv + i * sizeof(std::uint64_t), text));
      EXPECT_TRUE(
          tracee_.Write(text, std::as_bytes(std::span(args[i].c_str(), args[i].size() + 1))));
      text += args[i].size() + 1;
    }
    EXPECT_TRUE(tracee_.WriteObject(kArgv + args.size() * sizeof(std::uint64_t), std::uint64_t{0}));
    return Run(kArgv);
  }

  AuditArgs Run(std::uint64_t argv) {
    SyscallEvent event{};
    HandlerContext context{.event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = {}};
    AuditArgv(context, argv);
    return context.audit_args;
  }

  Sandbox sandbox_;
  FakeTracee tracee_{1 << 20};
};

TEST_F(ExecArgvTest, ArgumentsAreShellQuotedAndCounted) {
  const AuditArgs args = Audit({"python3", "-c", "print('hi there')", "a=b", ""});
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].name, "argv");
  EXPECT_EQ(args[0].value, R"(python3 -c 'print('\''hi there'\'')' a=b '')");
  EXPECT_EQ(args[1], (AuditValue{"argc", "5", true}));
}

// Past kArgvAuditBytes the text ends in " ..." at an argument's end; every
// argument is still counted.
TEST_F(ExecArgvTest, ALongCommandIsCutAndMarked) {
  std::vector<std::string> many(600, "argument");
  const AuditArgs args = Audit(many);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_LE(args[0].value.size(), kArgvAuditBytes + 4);
  EXPECT_TRUE(args[0].value.ends_with("argument ...")) << args[0].value;
  EXPECT_EQ(args[1].value, "600");
  // One argument longer than the whole budget: nothing of it, marked.
  const AuditArgs huge = Audit({std::string(5000, 'x')});
  EXPECT_EQ(huge[0].value, "...");
  EXPECT_EQ(huge[1].value, "1");
}

TEST_F(ExecArgvTest, AnUnreadableArrayIsSaidSo) {
  const AuditArgs args = Run(0x10);
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].value, "(unreadable)");
}

}  // namespace
}  // namespace vigil::sentry
