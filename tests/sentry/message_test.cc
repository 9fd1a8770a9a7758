// sendmsg's message as the sentry copies and checks it, against a fake
// workload: the payload behind the iovecs, and control data that must be
// refused where the kernel's __scm_send refuses it.
#include "sentry/handlers/message.h"

#include <gtest/gtest.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "tests/sentry/fake_tracee.h"

namespace vigil::sentry {
namespace {

// One cmsghdr with `length` in cmsg_len and `fds` after it, in a buffer
// of `size` bytes (at least the header's).
std::vector<char> Control(std::size_t length, int level, int type, std::vector<int> fds,
                          std::size_t size) {
  std::vector<char> control(size);
  cmsghdr header{.cmsg_len = length, .cmsg_level = level, .cmsg_type = type};
  std::memcpy(control.data(), &header, sizeof header);
  std::memcpy(control.data() + CMSG_LEN(0), fds.data(), fds.size() * sizeof(int));
  return control;
}

int ErrorOf(const Result<std::vector<char>>& result) { return result ? 0 : result.error().code; }

TEST(TranslateControl, ReplacesTheWorkloadsDescriptorsWithDuplicates) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  Result<std::vector<char>> control =
      TranslateControl(tracee,
                       Control(CMSG_LEN(2 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS, {0, 1},
                               CMSG_SPACE(2 * sizeof(int))),
                       held);
  ASSERT_TRUE(control) << control.error().message;
  ASSERT_EQ(held.size(), 2u);
  int fds[2];
  std::memcpy(fds, control->data() + CMSG_LEN(0), sizeof fds);
  EXPECT_EQ(fds[0], held[0].Get());
  EXPECT_EQ(fds[1], held[1].Get());
}

// Found by sockaddr_fuzzer: cmsg_len was trusted, so a length shorter than
// the header counted ~2^62 descriptors, and a longer one read past the
// buffer. The kernel answers EINVAL to both (CMSG_OK).
TEST(TranslateControl, RefusesALengthShorterThanTheHeader) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, Control(0, SOL_SOCKET, SCM_RIGHTS, {}, 24), held)),
            EINVAL);
  EXPECT_EQ(ErrorOf(TranslateControl(
                tracee, Control(sizeof(cmsghdr) - 1, SOL_SOCKET, SCM_RIGHTS, {}, 24), held)),
            EINVAL);
  EXPECT_TRUE(held.empty());
}

TEST(TranslateControl, RefusesALengthPastTheBuffer) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  EXPECT_EQ(
      ErrorOf(TranslateControl(
          tracee, Control(CMSG_LEN(64 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS, {0}, 24), held)),
      EINVAL);
  EXPECT_TRUE(held.empty());
}

// A second header whose length runs past the end is refused too, not only
// the first.
TEST(TranslateControl, ChecksEveryHeader) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  std::vector<char> control = Control(CMSG_LEN(sizeof(int)), SOL_SOCKET, SCM_RIGHTS, {0},
                                      CMSG_SPACE(sizeof(int)) + sizeof(cmsghdr));
  cmsghdr second{.cmsg_len = 4096, .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS};
  std::memcpy(control.data() + CMSG_SPACE(sizeof(int)), &second, sizeof second);
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, std::move(control), held)), EINVAL);
}

// None is a message without descriptors (the kernel's scm_fp_copy; the
// syscall suite's scm-rights-zero); more than SCM_MAX_FD is EINVAL.
TEST(TranslateControl, TakesRightsWithoutDescriptorsRefusesTooMany) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  EXPECT_TRUE(TranslateControl(
      tracee, Control(CMSG_LEN(0), SOL_SOCKET, SCM_RIGHTS, {}, CMSG_SPACE(0)), held));
  // SCM_MAX_FD is 253.
  std::vector<int> many(254, 0);
  EXPECT_EQ(
      ErrorOf(TranslateControl(tracee,
                               Control(CMSG_LEN(many.size() * sizeof(int)), SOL_SOCKET, SCM_RIGHTS,
                                       many, CMSG_SPACE(many.size() * sizeof(int))),
                               held)),
      EINVAL);
  EXPECT_TRUE(held.empty());
}

std::vector<char> Credentials(pid_t pid, uid_t uid, gid_t gid) {
  return Control(CMSG_LEN(sizeof(ucred)), SOL_SOCKET, SCM_CREDENTIALS,
                 {static_cast<int>(pid), static_cast<int>(uid), static_cast<int>(gid)},
                 CMSG_SPACE(sizeof(ucred)));
}

// The credentials in `control`'s first message; none if it is too short.
ucred CredentialsIn(const std::vector<char>& control) {
  ucred got{};
  if (control.size() < CMSG_LEN(sizeof got)) return got;
  std::memcpy(&got, control.data() + CMSG_LEN(0), sizeof got);
  return got;
}

// A thread of process 4242 on the host, 7 in the container, uid 1000
// (saved 1002), gid 100 (saved 102), without capabilities.
ThreadStatus Sender() {
  return ThreadStatus{.ruid = 1000,
                      .rgid = 100,
                      .euid = 1001,
                      .egid = 101,
                      .suid = 1002,
                      .sgid = 102,
                      .tgid = 4242,
                      .ns_tgid = 7,
                      .ns_tid = 9};
}

TEST(TranslateControl, RefusesCredentialsWithoutASender) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, Credentials(0, 0, 0), held)), EPERM);
  const ThreadStatus thread = Sender();
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, Credentials(7, 1000, 100), held,
                                     {&thread, /*in_user_namespace=*/true})),
            EPERM);
}

// The kernel's scm_check_creds: its own pid, any of its real, effective or
// saved ids; the pid then the one the sentry's namespace knows.
TEST(TranslateControl, TakesTheSendersOwnCredentialsWithItsPidForTheSentry) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  const ThreadStatus thread = Sender();
  for (auto [uid, gid] : {std::pair<uid_t, gid_t>{1000, 100}, {1001, 101}, {1002, 102}}) {
    Result<std::vector<char>> sent =
        TranslateControl(tracee, Credentials(7, uid, gid), held, {&thread});
    ASSERT_TRUE(sent) << sent.error().message;
    EXPECT_EQ(CredentialsIn(*sent).pid, 4242);
    EXPECT_EQ(CredentialsIn(*sent).uid, uid);
    EXPECT_EQ(CredentialsIn(*sent).gid, gid);
  }
}

TEST(TranslateControl, RefusesCredentialsTheSenderCannotClaim) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  ThreadStatus thread = Sender();
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, Credentials(1, 1000, 100), held, {&thread})), EPERM);
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, Credentials(7, 0, 100), held, {&thread})), EPERM);
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, Credentials(7, 1000, 0), held, {&thread})), EPERM);
  // CAP_SETUID and CAP_SETGID let it claim any ids (not another pid).
  thread.cap_effective = (1u << 7) | (1u << 6);
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, Credentials(7, 0, 0), held, {&thread})), 0);
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, Credentials(1, 0, 0), held, {&thread})), EPERM);
  // Credentials of the wrong size are malformed, whoever sends them.
  EXPECT_EQ(ErrorOf(TranslateControl(
                tracee, Control(CMSG_LEN(8), SOL_SOCKET, SCM_CREDENTIALS, {7, 0}, CMSG_SPACE(8)),
                held, {&thread})),
            EINVAL);
}

// What a unix socket's message carries when its sender claims nothing.
TEST(AddSenderCredentials, AppendsTheSendersPidAndRealIdsAfterTheMessages) {
  const ThreadStatus thread = Sender();
  std::vector<char> control =
      Control(CMSG_LEN(sizeof(int)), SOL_SOCKET, SCM_RIGHTS, {5}, CMSG_SPACE(sizeof(int)));
  EXPECT_FALSE(Holds(control, SCM_CREDENTIALS));
  AddSenderCredentials(control, thread);
  ASSERT_EQ(control.size(), CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(ucred)));
  EXPECT_TRUE(Holds(control, SCM_CREDENTIALS));
  EXPECT_TRUE(Holds(control, SCM_RIGHTS));
  EXPECT_TRUE(PassesDescriptors(control));
  EXPECT_FALSE(PassesDescriptors(Control(CMSG_LEN(0), SOL_SOCKET, SCM_RIGHTS, {}, CMSG_SPACE(0))));
  auto added = [&] {
    return CredentialsIn(
        std::vector<char>(control.begin() + CMSG_SPACE(sizeof(int)), control.end()));
  };
  EXPECT_EQ(added().pid, 4242);
  EXPECT_EQ(added().uid, 1000u);
  EXPECT_EQ(added().gid, 100u);
  // What a message passing descriptors carries instead (ControlToSend).
  SetCredentialsPid(control, 77);
  EXPECT_EQ(added().pid, 77);
  EXPECT_EQ(added().uid, 1000u);
  // Bytes too few for a header, which the kernel ignores, make way.
  std::vector<char> trailer(4, '\xff');
  AddSenderCredentials(trailer, thread);
  EXPECT_EQ(trailer.size(), CMSG_SPACE(sizeof(ucred)));
  EXPECT_TRUE(Holds(trailer, SCM_CREDENTIALS));
}

// What goes with each part of a message sent in several: the credentials,
// not the descriptors.
TEST(CredentialsOf, KeepsOnlyTheCredentials) {
  std::vector<char> control =
      Control(CMSG_LEN(sizeof(int)), SOL_SOCKET, SCM_RIGHTS, {5}, CMSG_SPACE(sizeof(int)));
  EXPECT_TRUE(CredentialsOf(control).empty());
  AddSenderCredentials(control, Sender());
  const std::vector<char> credentials = CredentialsOf(control);
  ASSERT_EQ(credentials.size(), CMSG_SPACE(sizeof(ucred)));
  EXPECT_FALSE(Holds(credentials, SCM_RIGHTS));
  EXPECT_EQ(CredentialsIn(credentials).pid, 4242);
}

// Trailing bytes too few for a header are ignored, as the kernel ignores them.
TEST(TranslateControl, IgnoresATrailerShorterThanAHeader) {
  FakeTracee tracee;
  std::vector<UniqueFd> held;
  EXPECT_EQ(ErrorOf(TranslateControl(tracee, std::vector<char>(sizeof(cmsghdr) - 1, '\xff'), held)),
            0);
}

TEST(CopyPayload, ConcatenatesTheIovecs) {
  FakeTracee tracee;
  constexpr std::uint64_t kIovs = FakeTracee::kBase;
  constexpr std::uint64_t kData = FakeTracee::kBase + 256;
  iovec iovs[2] = {{reinterpret_cast<void*>(kData), 2}, {reinterpret_cast<void*>(kData + 4), 3}};
  ASSERT_TRUE(tracee.WriteObject(kIovs, iovs));
  ASSERT_TRUE(tracee.Write(kData, std::as_bytes(std::span("ab..cde", 7))));
  msghdr message{};
  message.msg_iov = reinterpret_cast<iovec*>(kIovs);
  message.msg_iovlen = 2;
  Result<std::vector<char>> payload = CopyPayload(tracee, message);
  ASSERT_TRUE(payload) << payload.error().message;
  EXPECT_EQ(std::string(payload->begin(), payload->end()), "abcde");
}

TEST(CopyPayload, FailsAsTheKernelWould) {
  FakeTracee tracee;
  msghdr message{};
  message.msg_iovlen = IOV_MAX + 1;
  EXPECT_EQ(CopyPayload(tracee, message).error().code, EMSGSIZE);
  message.msg_iovlen = 1;
  message.msg_iov = reinterpret_cast<iovec*>(8);
  EXPECT_EQ(CopyPayload(tracee, message).error().code, EFAULT);
}

TEST(CopyControl, IsEmptyWithoutControlAndBoundedWithIt) {
  FakeTracee tracee;
  msghdr message{};
  Result<std::vector<char>> none = CopyControl(tracee, message);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  message.msg_control = reinterpret_cast<void*>(FakeTracee::kBase);
  message.msg_controllen = kMaxControl + 1;
  EXPECT_EQ(CopyControl(tracee, message).error().code, ENOBUFS);
}

}  // namespace
}  // namespace vigil::sentry
