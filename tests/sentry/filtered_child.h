// A child process under the sentry's filter, for tests of the notification
// backend without a container: it loads the filter, hands its listener to
// the test, waits for the go, runs `body` (which reports on a pipe) and
// exits.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "base/syscalls.h"
#include "base/unique_fd.h"
#include "seccomp/profile.h"
#include "sentry/table/sentry_filter.h"

namespace vigil::sentry {

class FilteredChild {
 public:
  // `body` runs in the child with the write end of the report pipe.
  explicit FilteredChild(const std::function<void(int report)>& body,
                         const FilterOptions& options = {}) {
    Result<seccomp::CompiledFilter> filter = BuildSentryFilter(options);
    EXPECT_TRUE(filter);
    int to_parent[2], to_child[2], reports[2];
    EXPECT_EQ(::pipe2(to_parent, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(to_child, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(reports, O_CLOEXEC), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
      Result<UniqueFd> listener = seccomp::LoadSeccomp(*filter);
      if (!listener) ::_exit(100);
      int number = listener->Get();
      if (::write(to_parent[1], &number, sizeof number) != sizeof number) ::_exit(101);
      char go;
      if (::read(to_child[0], &go, 1) != 1) ::_exit(102);
      listener->Reset();
      body(reports[1]);
      ::_exit(0);
    }
    ::close(to_parent[1]);
    ::close(to_child[0]);
    ::close(reports[1]);
    from_child_.Reset(to_parent[0]);
    to_child_.Reset(to_child[1]);
    reports_.Reset(reports[0]);
  }

  ~FilteredChild() { Wait(); }

  // A duplicate of the child's listener.
  UniqueFd TakeListener() {
    int number = -1;
    EXPECT_EQ(::read(from_child_.Get(), &number, sizeof number), sizeof number);
    Result<UniqueFd> pidfd = PidfdOpen(pid_);
    EXPECT_TRUE(pidfd);
    Result<UniqueFd> listener = PidfdGetfd(pidfd->Get(), number);
    EXPECT_TRUE(listener) << listener.error().message;
    return listener ? std::move(*listener) : UniqueFd();
  }

  void Go() { EXPECT_EQ(::write(to_child_.Get(), "g", 1), 1); }

  // Readable once the child has reported everything (its end closes).
  int report_fd() const { return reports_.Get(); }

  std::string ReadReports() {
    std::string out;
    char buffer[512];
    ssize_t n;
    while ((n = ::read(reports_.Get(), buffer, sizeof buffer)) > 0)
      out.append(buffer, static_cast<std::size_t>(n));
    return out;
  }

  // The child's exit status (waitpid's), once.
  int Wait() {
    if (pid_ > 0) {
      ::waitpid(pid_, &status_, 0);
      pid_ = -1;
    }
    return status_;
  }

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  UniqueFd from_child_, to_child_, reports_;
};

}  // namespace vigil::sentry
