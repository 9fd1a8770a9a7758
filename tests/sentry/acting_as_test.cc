// The sentry taking a workload thread's credentials for one operation and
// giving them back, whether or not they differ from its own.
#include "sentry/handlers/acting_as.h"

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
  void TearDown() override { ::unlink(secret_.c_str()); }

  int OpenError() {
    int fd = ::open(secret_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    ::close(fd);
    return 0;
  }

  std::string secret_;
};

TEST_F(ActingAsTest, AnUnprivilegedThreadIsRefusedAndTheSentryRecovers) {
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
  EXPECT_EQ(Current(), before);
  EXPECT_EQ(OpenError(), 0);
}

// Another user's thread with CAP_DAC_OVERRIDE reads the file; the same
// thread in a user namespace has no capability on the host's files.
TEST_F(ActingAsTest, CapabilitiesCountOnlyOutsideAUserNamespace) {
  const Credentials before = Current();
  ThreadStatus overriding{.fsuid = 1000, .fsgid = 1000,
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
  EXPECT_EQ(Current(), before);
}

// A bind needs no more than the two capabilities the kernel checks there;
// over a user namespace the sentry's euid is an outsider's meanwhile.
TEST_F(ActingAsTest, ForBindKeepsOnlyTheBindCapabilities) {
  const Credentials before = Current();
  ThreadStatus all{.cap_effective = ~std::uint64_t{0}};
  constexpr std::uint32_t kBind = (1u << CAP_NET_BIND_SERVICE) | (1u << CAP_NET_ADMIN);
  {
    Result<ActingAs> acting = ActingAs::ForBind(all, false, true);
    ASSERT_TRUE(acting) << acting.error().message;
    EXPECT_EQ(Current().effective_low, kBind);
    EXPECT_EQ(::geteuid(), 0u);
  }
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
