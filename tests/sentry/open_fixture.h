// The open handler's test fixture, shared by the tests of open, openat
// and openat2: a fake tracee whose container root is a temporary directory
// holding /etc (hostname readable, secret hidden, denied denied), /tmp
// (writable) and /work/sub (the working directory), under a policy that
// reads by default.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "config/policy/policy.h"
#include "sentry/handlers/handler.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"

namespace vigil::sentry {

// Where the fixture puts the path it opens.
inline constexpr std::uint64_t kPath = FakeTracee::kBase;

class OpenFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vigil-open-root-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    std::filesystem::create_directories(root_ + "/etc");
    std::filesystem::create_directories(root_ + "/tmp");
    std::filesystem::create_directories(root_ + "/work/sub");
    Write("/etc/hostname", "container\n");
    Write("/etc/secret", "s3cret\n");
    tracee_.root = root_;
    tracee_.cwd = "/work/sub";
    Result<config::Policy> policy = config::ParsePolicy(R"({"files": {"default": "read", "rules": [
        {"path": "/etc/secret", "access": "hidden"},
        {"path": "/etc/denied", "access": "deny"},
        {"path": "/tmp/**", "access": "write"}]}})");
    ASSERT_TRUE(policy) << policy.error().message;
    policy_ = *policy;
    sandbox_.policy = &policy_;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Write(const std::string& path, const std::string& text) {
    std::ofstream(root_ + path) << text;
  }

  void Put(std::uint64_t address, const std::string& text) {
    EXPECT_TRUE(tracee_.Write(address, std::as_bytes(std::span(text.c_str(), text.size() + 1))));
  }

  // The open handler for syscall `number` with `args`; its audit
  // arguments kept for Resolved().
  Verdict Call(int number, std::array<std::uint64_t, 6> args) {
    SyscallEvent event{.tid = ::gettid(), .number = number, .args = args};
    HandlerContext context{
        .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
          return Result<void>();
        }};
    Verdict verdict = HandleAsLoop(Handler::kOpen, context);
    audit_ = context.audit_args;
    return verdict;
  }

  Verdict Open(const std::string& path, int flags, mode_t mode = 0644) {
    Put(kPath, path);
    return Call(SYS_openat, {static_cast<std::uint64_t>(AT_FDCWD), kPath,
                             static_cast<std::uint64_t>(flags), mode});
  }

  static std::string ReadAll(const Verdict& verdict) {
    EXPECT_EQ(verdict.kind, Verdict::Kind::kInstallFd);
    if (verdict.kind != Verdict::Kind::kInstallFd) return "";
    char buf[64] = {};
    ssize_t n = ::pread(verdict.fd->Get(), buf, sizeof buf - 1, 0);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  }

  // The audit argument `name` of the last call ("" if it had none).
  std::string Audited(const std::string& name) const {
    for (const AuditValue& arg : audit_) {
      if (arg.name == name) return arg.value;
    }
    return "";
  }
  std::string Resolved() const { return Audited("resolved"); }

  std::string root_;
  config::Policy policy_;
  Sandbox sandbox_;
  FakeTracee tracee_{8192};
  AuditArgs audit_;
};

}  // namespace vigil::sentry
