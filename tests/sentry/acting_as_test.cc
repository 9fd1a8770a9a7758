// The sentry taking a workload thread's credentials for an operation,
// keeping them (but the umask) for the next until it asks for its own, and
// starting every change from what it holds.
#include "sentry/core/acting_as.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace vigil::sentry {
namespace {

struct Credentials {
  uid_t fsuid;
  gid_t fsgid;
  std::vector<gid_t> groups;
  std::uint32_t effective_low;
  mode_t umask;

  bool operator==(const Credentials&) const = default;
};

Credentials Current() {
  Credentials now{};
  now.fsuid = static_cast<uid_t>(::setfsuid(static_cast<uid_t>(-1)));
  now.fsgid = static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1)));
  now.groups.resize(static_cast<std::size_t>(::getgroups(0, nullptr)));
  ::getgroups(static_cast<int>(now.groups.size()), now.groups.data());
  __user_cap_header_struct header{.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  __user_cap_data_struct data[2] = {};
  ::syscall(SYS_capget, &header, data);
  now.effective_low = data[0].effective;
  now.umask = ::umask(0);
  ::umask(now.umask);
  return now;
}

class ActingAsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "needs root to take other credentials";
    char path[] = "/tmp/vigil-acting-as-XXXXXX";
    int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::close(fd);
    ASSERT_EQ(::chmod(path, 0600), 0);
    secret_ = path;
  }
  void TearDown() override {
    EXPECT_TRUE(ActingAs::AsSentry());
    ::unlink(secret_.c_str());
  }

  int OpenError() {
    int fd = ::open(secret_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    ::close(fd);
    return 0;
  }

  std::string secret_;
};

TEST_F(ActingAsTest, AnUnprivilegedThreadIsRefusedUntilTheSentryAsksForItsOwn) {
  const Credentials before = Current();
  ThreadStatus nobody{.fsuid = 65534, .fsgid = 65534, .groups = {65534}, .umask = 077};
  {
    Result<ActingAs> acting = ActingAs::Begin(nobody, /*in_user_namespace=*/false);
    ASSERT_TRUE(acting) << acting.error().message;
    EXPECT_EQ(OpenError(), EACCES);
    const Credentials during = Current();
    EXPECT_EQ(during.fsuid, 65534u);
    EXPECT_EQ(during.groups, std::vector<gid_t>{65534});
    EXPECT_EQ(during.effective_low, 0u);
    EXPECT_EQ(during.umask, 077u);
  }
  // Held for the next call, but the umask, which other threads share.
  const Credentials after = Current();
  EXPECT_EQ(after.fsuid, 65534u);
  EXPECT_EQ(after.effective_low, 0u);
  EXPECT_EQ(after.umask, before.umask);
  EXPECT_EQ(OpenError(), EACCES);
  ASSERT_TRUE(ActingAs::AsSentry());
  EXPECT_EQ(Current(), before);
  EXPECT_EQ(OpenError(), 0);
}

// Another user's thread with CAP_DAC_OVERRIDE reads the file; the same
// thread in a user namespace has no capability on the host's files.
TEST_F(ActingAsTest, CapabilitiesCountOnlyOutsideAUserNamespace) {
  const Credentials before = Current();
  ThreadStatus overriding{.fsuid = 1000,
                          .fsgid = 1000,
                          .cap_effective = std::uint64_t{1} << CAP_DAC_OVERRIDE,
                          .umask = before.umask};
  {
    Result<ActingAs> acting = ActingAs::Begin(overriding, /*in_user_namespace=*/false);
    ASSERT_TRUE(acting);
    EXPECT_EQ(OpenError(), 0);
  }
  {
    Result<ActingAs> acting = ActingAs::Begin(overriding, /*in_user_namespace=*/true);
    ASSERT_TRUE(acting);
    EXPECT_EQ(OpenError(), EACCES);
  }
  ASSERT_TRUE(ActingAs::AsSentry());
  EXPECT_EQ(Current(), before);
}

// What a thread left without CAP_SETUID or CAP_SETGID does not stop the
// sentry from taking the next thread's ids and groups, nor leaks into them.
TEST_F(ActingAsTest, EachThreadIsTakenWhateverTheLastLeft) {
  const Credentials before = Current();
  ThreadStatus nobody{.fsuid = 65534, .fsgid = 65534, .groups = {65534}, .umask = before.umask};
  ThreadStatus overriding{.fsuid = 1000,
                          .fsgid = 1000,
                          .groups = {1000, 1001},
                          .cap_effective = std::uint64_t{1} << CAP_DAC_OVERRIDE,
                          .umask = before.umask};
  for (int round = 0; round < 2; ++round) {
    {
      Result<ActingAs> acting = ActingAs::Begin(nobody, false);
      ASSERT_TRUE(acting) << acting.error().message;
      EXPECT_EQ(OpenError(), EACCES);
    }
    {
      Result<ActingAs> acting = ActingAs::Begin(overriding, false);
      ASSERT_TRUE(acting) << acting.error().message;
      const Credentials during = Current();
      EXPECT_EQ(during.fsuid, 1000u);
      EXPECT_EQ(during.fsgid, 1000u);
      EXPECT_EQ(during.groups, (std::vector<gid_t>{1000, 1001}));
      EXPECT_EQ(during.effective_low, 1u << CAP_DAC_OVERRIDE);
      EXPECT_EQ(OpenError(), 0);
    }
  }
  // The sentry's own ids with the held capabilities: the file set back
  // to root also raises CAP_DAC_OVERRIDE alone (capabilities(7)).
  ThreadStatus root_without_capabilities{.groups = before.groups, .umask = before.umask};
  {
    Result<ActingAs> acting = ActingAs::Begin(root_without_capabilities, false);
    ASSERT_TRUE(acting) << acting.error().message;
    EXPECT_EQ(Current().fsuid, 0u);
    EXPECT_EQ(Current().effective_low, 0u);
  }
  ASSERT_TRUE(ActingAs::AsSentry());
  EXPECT_EQ(Current(), before);
}

// Whoever holds an ActingAs means to act as the workload: the sentry's own
// credentials, or a second workload's, are refused until it ends.
TEST_F(ActingAsTest, OneAtATime) {
  ThreadStatus nobody{.fsuid = 65534, .fsgid = 65534, .groups = {65534}, .umask = 022};
  {
    Result<ActingAs> acting = ActingAs::Begin(nobody, false);
    ASSERT_TRUE(acting);
    EXPECT_FALSE(ActingAs::AsSentry());
    EXPECT_FALSE(ActingAs::Begin(nobody, false));
    EXPECT_FALSE(ActingAs::ForBind(nobody, false, true));
    EXPECT_EQ(OpenError(), EACCES);
  }
  EXPECT_TRUE(ActingAs::AsSentry());
  EXPECT_EQ(OpenError(), 0);
}

// An act that gets the same answer whoever makes it is made with what the
// thread holds, and as the sentry only when that is refused.
TEST_F(ActingAsTest, AsHeldThenAsSentryGivesCredentialsBackOnlyWhenRefused) {
  const Credentials before = Current();
  auto open_secret = [this]() -> Result<int> {
    if (int error = OpenError()) return FailErrno(error, "open");
    return 0;
  };
  ThreadStatus owner{.fsuid = 0, .fsgid = 0, .groups = before.groups, .umask = before.umask};
  ASSERT_TRUE(ActingAs::Begin(owner, false));  // root without capabilities: the file's owner
  EXPECT_TRUE(ActingAs::AsHeldThenAsSentry(open_secret));
  EXPECT_EQ(Current().effective_low, 0u) << "given back although the held ones sufficed";

  ThreadStatus nobody{.fsuid = 65534, .fsgid = 65534, .groups = {65534}, .umask = before.umask};
  ASSERT_TRUE(ActingAs::Begin(nobody, false));
  EXPECT_TRUE(ActingAs::AsHeldThenAsSentry(open_secret));
  EXPECT_EQ(Current(), before);

  // While an ActingAs lives its owner means the workload's answer.
  Result<ActingAs> acting = ActingAs::Begin(nobody, false);
  ASSERT_TRUE(acting);
  Result<int> refused = ActingAs::AsHeldThenAsSentry(open_secret);
  ASSERT_FALSE(refused);
  EXPECT_EQ(Current().fsuid, 65534u);
}

// As a unix peer sees it: every id the thread's, whatever was held before,
// and all of the sentry's back when it ends.
TEST_F(ActingAsTest, AsPeerTakesTheRealAndEffectiveIdsToo) {
  const Credentials before = Current();
  ThreadStatus nobody{.fsuid = 65534, .fsgid = 65534, .groups = {65534}, .umask = before.umask};
  ThreadStatus user{.ruid = 1000,
                    .rgid = 1001,
                    .euid = 1002,
                    .egid = 1003,
                    .fsuid = 1002,
                    .fsgid = 1003,
                    .groups = {1004},
                    .umask = 027};
  ASSERT_TRUE(ActingAs::Begin(nobody, false));
  {
    Result<ActingAs> acting = ActingAs::AsPeer(user, false);
    ASSERT_TRUE(acting) << acting.error().message;
    EXPECT_EQ(::getuid(), 1000u);
    EXPECT_EQ(::getgid(), 1001u);
    EXPECT_EQ(::geteuid(), 1002u);
    EXPECT_EQ(::getegid(), 1003u);
    const Credentials during = Current();
    EXPECT_EQ(during.fsuid, 1002u);
    EXPECT_EQ(during.fsgid, 1003u);
    EXPECT_EQ(during.groups, std::vector<gid_t>{1004});
    EXPECT_EQ(during.umask, 027u);
    EXPECT_EQ(OpenError(), EACCES);
  }
  EXPECT_EQ(::getuid(), 0u);
  EXPECT_EQ(::geteuid(), 0u);
  EXPECT_EQ(::getgid(), 0u);
  EXPECT_EQ(::getegid(), 0u);
  EXPECT_EQ(Current(), before);
}

// A bind needs no more than the two capabilities the kernel checks there;
// over a user namespace the sentry's euid is an outsider's meanwhile. It
// starts from the sentry's own identity, whatever a thread left, and gives
// everything back when it ends.
TEST_F(ActingAsTest, ForBindKeepsOnlyTheBindCapabilities) {
  const Credentials before = Current();
  ThreadStatus nobody{.fsuid = 65534, .fsgid = 65534, .groups = {65534}, .umask = before.umask};
  ThreadStatus all{.cap_effective = ~std::uint64_t{0}};
  constexpr std::uint32_t kBind = (1u << CAP_NET_BIND_SERVICE) | (1u << CAP_NET_ADMIN);
  {
    ASSERT_TRUE(ActingAs::Begin(nobody, false));
    Result<ActingAs> acting = ActingAs::ForBind(all, false, true);
    ASSERT_TRUE(acting) << acting.error().message;
    EXPECT_EQ(Current().effective_low, kBind);
    EXPECT_EQ(Current().fsuid, before.fsuid);
    EXPECT_EQ(Current().groups, before.groups);
    EXPECT_EQ(::geteuid(), 0u);
  }
  EXPECT_EQ(Current(), before);
  {
    Result<ActingAs> acting = ActingAs::ForBind(all, true, true);
    ASSERT_TRUE(acting) << acting.error().message;
    EXPECT_EQ(Current().effective_low, kBind);
    EXPECT_EQ(::geteuid(), 65534u);
  }
  {
    Result<ActingAs> acting = ActingAs::ForBind(all, true, false);
    ASSERT_TRUE(acting) << acting.error().message;
    EXPECT_EQ(Current().effective_low, 0u);
  }
  EXPECT_EQ(::geteuid(), 0u);
  EXPECT_EQ(Current(), before);
  EXPECT_EQ(OpenError(), 0);
}

}  // namespace
}  // namespace vigil::sentry
