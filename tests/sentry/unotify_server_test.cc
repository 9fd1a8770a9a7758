// The user-notification backend end to end, without a container: a child
// under the sentry's filter makes mediated syscalls, the server answers.
#include "sentry/notify/unotify_server.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/strings.h"
#include "base/syscalls.h"
#include "sentry/notify/unotify.h"
#include "sentry/table/sentry_filter.h"
#include "tests/sentry/filtered_child.h"

namespace vigil::sentry {
namespace {

// What the filtered child reports back.
struct ChildReport {
  int uname_errno;
  char nodename[65];
  char release[65];
  int sysinfo_errno;
  unsigned long totalram;
  unsigned int mem_unit;
};

// Calls uname and sysinfo, and reports what they answered.
void UnameAndSysinfo(int report_fd) {
  ChildReport report{};
  utsname names{};
  report.uname_errno = ::uname(&names) == 0 ? 0 : errno;
  std::memcpy(report.nodename, names.nodename, sizeof report.nodename);
  std::memcpy(report.release, names.release, sizeof report.release);
  struct sysinfo info {};
  report.sysinfo_errno = ::sysinfo(&info) == 0 ? 0 : errno;
  report.totalram = info.totalram;
  report.mem_unit = info.mem_unit;
  if (::write(report_fd, &report, sizeof report) != sizeof report) ::_exit(103);
}

ChildReport ReadReport(FilteredChild& child) {
  ChildReport report{};
  EXPECT_EQ(::read(child.report_fd(), &report, sizeof report), sizeof report);
  return report;
}

Sandbox TestSandbox() {
  Sandbox sandbox;
  sandbox.kernel_release = "4.4.0-sentry";
  sandbox.uts_names = [] {
    utsname names{};
    ::uname(&names);
    std::strcpy(names.nodename, "sentried");
    return Result<utsname>(names);
  };
  sandbox.memory = [] {
    return Result<ContainerMemory>(ContainerMemory{.limit = 256 << 20, .usage = 0});
  };
  sandbox.process_count = [] { return Result<std::uint32_t>(1); };
  return sandbox;
}

TEST(UnotifyServer, AnswersMediatedSyscallsAndReportsEachDecision) {
  ASSERT_TRUE(unotify::CheckKernelSupport());
  Result<std::unique_ptr<EventLoop>> loop = EventLoop::Create();
  ASSERT_TRUE(loop);
  Sandbox sandbox = TestSandbox();
  std::vector<std::string> decided;
  UnotifyServer server(**loop, sandbox, [&](const DecisionRecord& record) {
    decided.push_back(StrCat(record.event.number, ":", record.verdict.error));
  });
  FilteredChild child(UnameAndSysinfo);
  ASSERT_TRUE(server.AddListener(child.TakeListener()));
  child.Go();
  bool reported = false;
  ASSERT_TRUE((*loop)->Watch(child.report_fd(), [&](std::uint32_t) { reported = true; }));
  ASSERT_TRUE((*loop)->Run([&] { return reported; }));
  ChildReport report = ReadReport(child);
  EXPECT_EQ(report.uname_errno, 0);
  EXPECT_STREQ(report.nodename, "sentried");
  EXPECT_STREQ(report.release, "4.4.0-sentry");
  EXPECT_EQ(report.sysinfo_errno, 0);
  EXPECT_EQ(report.totalram * report.mem_unit, 256u << 20);
  EXPECT_EQ(decided, (std::vector<std::string>{"63:0", "99:0"}));
}

// Fail closed: with the listener gone (the supervisor died), a mediated
// syscall fails instead of reaching the host kernel.
TEST(UnotifyServer, WithoutTheListenerMediatedSyscallsFail) {
  FilteredChild child(UnameAndSysinfo);
  UniqueFd listener = child.TakeListener();
  listener.Reset();
  child.Go();
  ChildReport report = ReadReport(child);
  EXPECT_EQ(report.uname_errno, ENOSYS);
  EXPECT_EQ(report.sysinfo_errno, ENOSYS);
}

}  // namespace
}  // namespace vigil::sentry
