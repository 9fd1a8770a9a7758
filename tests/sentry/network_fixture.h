// What the network handlers' tests share: a fake tracee whose "workload"
// is the test process (its sockets are real, so what the sentry does on its
// behalf can be observed), where its arguments go, and a listener.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstdint>

#include "base/strings.h"
#include "config/policy/policy.h"
#include "sentry/handlers/handler.h"
#include "sentry/table/syscall_table.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"

namespace vigil::sentry {

inline constexpr std::uint64_t kAddress = FakeTracee::kBase;         // where sockaddrs go
inline constexpr std::uint64_t kPayload = FakeTracee::kBase + 1024;  // where data goes
inline constexpr std::uint64_t kHeader = FakeTracee::kBase + 2048;   // a msghdr
inline constexpr std::uint64_t kIov = FakeTracee::kBase + 2200;      // its iovec
inline constexpr std::uint64_t kControl = FakeTracee::kBase + 2300;  // its control data

inline config::Policy DenyAllButPort(std::uint16_t port) {
  Result<config::Policy> policy = config::ParsePolicy(
      StrCat(R"({"network": {"egress": "deny", "allow": [{"cidr": "127.0.0.1/32", "ports": [)",
             port, R"(]}], "unix": false}})"));
  EXPECT_TRUE(policy) << policy.error().message;
  return *policy;
}

struct Listener {
  Listener() {
    fd.Reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in in{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
    EXPECT_EQ(::bind(fd.Get(), reinterpret_cast<sockaddr*>(&in), sizeof in), 0);
    EXPECT_EQ(::listen(fd.Get(), 4), 0);
    socklen_t size = sizeof in;
    ::getsockname(fd.Get(), reinterpret_cast<sockaddr*>(&in), &size);
    port = ntohs(in.sin_port);
  }
  UniqueFd fd;
  std::uint16_t port = 0;
};

inline sockaddr_in Loopback(std::uint16_t port) {
  return {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = {htonl(INADDR_LOOPBACK)}};
}

class NetworkHandlers : public ::testing::Test {
 protected:
  Verdict Call(int number, std::array<std::uint64_t, 6> args) {
    SyscallEvent event{.tid = ::gettid(), .number = number, .args = args};
    HandlerContext context{
        .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int fd, std::uint32_t) {
          pollfd p{.fd = fd, .events = POLLOUT};
          ::poll(&p, 1, 5000);
          return Result<void>();
        }};
    Verdict verdict = HandleAsLoop(FindSyscall(number)->handler, context);
    audit_args_ = context.audit_args;
    return verdict;
  }

  void SetUp() override {
    policy_ = DenyAllButPort(listener_.port);
    sandbox_.policy = &policy_;
  }

  Listener listener_;
  config::Policy policy_;
  Sandbox sandbox_;
  FakeTracee tracee_{4096};
  AuditArgs audit_args_;
};

}  // namespace vigil::sentry
