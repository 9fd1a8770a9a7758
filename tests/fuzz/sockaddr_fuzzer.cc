// Syscall arguments as a hostile workload lays them out in its memory: the
// destination of connect/sendto/sendmsg and the address of bind
// (CopyDestination, DescribeDestination, EgressVerdict, BindVerdict), a path (CopyPath,
// ContainerPath, RewriteSelf), and a whole sendmsg message (its msghdr, iovecs, payload and control
// data). Each copy must fail exactly where the kernel would (EINVAL, EFAULT at a page edge,
// ENAMETOOLONG, ...) and never read outside what it was given.
//
// Input: a 20-byte header, then the workload's memory, mapped at
// FakeTracee::kBase with the rest of its last page filled with `fill`:
//   [0]      what to decode: 0 destination, 1 path, 2 sendmsg message
//   [1]      how [2..9] gives the pointer: 0 kBase + it, 1 the end of the
//            mapping - it, 2 as it is (anywhere, wrapping included)
//   [2..9]   pointer (little-endian)
//   [10..17] length, for a destination (little-endian)
//   [18]     fill
//   [19]     bits 0-1: the policy (default, agent, an allow-list);
//            bit 2: the container has its own network namespace
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "config/policy/policy.h"
#include "sentry/core/sandbox.h"
#include "sentry/handlers/destination.h"
#include "sentry/handlers/message.h"
#include "sentry/handlers/paths.h"
#include "tests/fuzz/check.h"
#include "tests/sentry/fake_tracee.h"

namespace {

using vigil::Result;
using vigil::fuzz::Die;
using vigil::sentry::FakeTracee;

constexpr std::size_t kHeader = 20;

struct Header {
  std::uint8_t op = 0;
  std::uint8_t pointer_mode = 0;
  std::uint64_t pointer = 0;
  std::uint64_t length = 0;
  std::uint8_t fill = 0;
  std::uint8_t sandbox = 0;
};

Header ReadHeader(std::span<const std::uint8_t> input) {
  std::uint8_t bytes[kHeader] = {};
  std::memcpy(bytes, input.data(), std::min(input.size(), kHeader));
  Header h;
  h.op = bytes[0] % 3;
  h.pointer_mode = bytes[1] % 3;
  std::memcpy(&h.pointer, bytes + 2, 8);
  std::memcpy(&h.length, bytes + 10, 8);
  h.fill = bytes[18];
  h.sandbox = bytes[19];
  return h;
}

std::uint64_t PointerFor(const Header& h, const FakeTracee& tracee) {
  switch (h.pointer_mode) {
    case 0:
      return FakeTracee::kBase + h.pointer;
    case 1:
      return tracee.End() - h.pointer;
    default:
      return h.pointer;
  }
}

const vigil::config::Policy& PolicyFor(std::uint8_t choice) {
  static const vigil::config::Policy kDefault = *vigil::config::BuiltinPolicy("default");
  static const vigil::config::Policy kAgent = *vigil::config::BuiltinPolicy("agent");
  static const vigil::config::Policy kAllowList = *vigil::config::ParsePolicy(R"({
    "network": {"egress": "deny", "unix": false, "allow": [
      {"cidr": "10.0.0.0/8", "ports": [80, "8000-8080"]}, {"cidr": "2001:db8::/32"}]}})");
  switch (choice % 4) {
    case 1:
      return kAgent;
    case 2:
    case 3:
      return kAllowList;
    default:
      return kDefault;
  }
}

void CheckError(const vigil::Error& error, std::initializer_list<int> expected, const char* what) {
  for (int code : expected) {
    if (error.code == code) return;
  }
  Die(what, std::to_string(error.code) + " " + error.message);
}

void DecodeDestination(FakeTracee& tracee, const vigil::sentry::Sandbox& sandbox,
                       std::uint64_t pointer, std::uint64_t length) {
  Result<vigil::sentry::Destination> copied = CopyDestination(tracee, pointer, length);
  const bool sized = length >= sizeof(sa_family_t) && length <= sizeof(sockaddr_storage);
  if (!copied) {
    if (!sized) return CheckError(copied.error(), {EINVAL}, "a bad length is not EINVAL");
    if (tracee.Mapped(pointer, length)) Die("a mapped address failed", copied.error().message);
    return CheckError(copied.error(), {EFAULT}, "an unmapped address is not EFAULT");
  }
  if (!sized || !tracee.Mapped(pointer, length)) Die("copied what the kernel refuses", "");
  if (copied->length != length ||
      std::memcmp(&copied->address, tracee.Bytes(pointer), length) != 0) {
    Die("the copy differs from the workload's bytes", "");
  }
  if (DescribeDestination(*copied).empty()) Die("an empty description", "");
  const int verdict = EgressVerdict(sandbox, *copied);
  // An IP address too short for its family is EINVAL whatever the policy,
  // as the kernel answers it; nothing else is.
  const sa_family_t family = copied->family();
  const bool short_ip =
      (family == AF_INET && length < sizeof(sockaddr_in)) || (family == AF_INET6 && length < 24);
  // connect with AF_UNSPEC dissolves an association: never refused. Sent
  // to, it is the IPv4 address after it, judged as that address.
  if (family == AF_UNSPEC) {
    if (EgressVerdict(sandbox, *copied, vigil::sentry::Egress::kConnect) != 0) {
      Die("connect(AF_UNSPEC) refused", DescribeDestination(*copied));
    }
    if (length >= sizeof(sockaddr_in)) {
      vigil::sentry::Destination as_ipv4;
      std::memcpy(&as_ipv4.address, &copied->address, copied->length);
      as_ipv4.length = copied->length;
      as_ipv4.address.ss_family = AF_INET;
      if (EgressVerdict(sandbox, as_ipv4) != verdict) {
        Die("a sent AF_UNSPEC address is not judged as IPv4", DescribeDestination(*copied));
      }
    }
  }
  if (short_ip != (verdict == EINVAL)) {
    Die("EINVAL is for an IP address too short for its family", DescribeDestination(*copied));
  }
  if (verdict != 0 && verdict != ENETUNREACH && verdict != EACCES && verdict != EINVAL) {
    Die("an unexpected verdict", std::to_string(verdict));
  }
  if (!sandbox.policy->egress_default_deny && sandbox.policy->unix_sockets && verdict != 0 &&
      !short_ip) {
    Die("a default-allow policy refused", DescribeDestination(*copied));
  }
  // bind: the same EINVAL; EACCES is its only refusal, and a default-allow
  // policy refuses nothing else.
  const int bind_verdict = BindVerdict(sandbox, *copied);
  if (short_ip != (bind_verdict == EINVAL)) {
    Die("bind: EINVAL is for an IP address too short for its family", DescribeDestination(*copied));
  }
  if (bind_verdict != 0 && bind_verdict != EACCES && bind_verdict != EINVAL) {
    Die("bind: an unexpected verdict", std::to_string(bind_verdict));
  }
  if (!sandbox.policy->egress_default_deny && sandbox.policy->unix_sockets && bind_verdict != 0 &&
      !short_ip) {
    Die("bind: a default-allow policy refused", DescribeDestination(*copied));
  }
  // A unix path is what the address holds up to its first NUL, never more
  // than sun_path.
  const std::string unix_path = UnixPath(*copied);
  if (unix_path.size() > sizeof(sockaddr_un::sun_path) ||
      unix_path.find('\0') != std::string::npos ||
      (!unix_path.empty() && (family != AF_UNIX || length <= offsetof(sockaddr_un, sun_path)))) {
    Die("UnixPath outside the address", DescribeDestination(*copied));
  }
}

// What the kernel's getname would answer for the string at `pointer`.
int ExpectedPathError(const FakeTracee& tracee, std::uint64_t pointer) {
  for (std::uint64_t i = 0; i < PATH_MAX; ++i) {
    if (!tracee.Mapped(pointer + i, 1)) return EFAULT;
    if (tracee.ByteAt(pointer + i) == 0) return i == 0 ? ENOENT : 0;
  }
  return ENAMETOOLONG;
}

void DecodePath(FakeTracee& tracee, std::uint64_t pointer) {
  Result<std::string> path = CopyPath(tracee, pointer);
  const int expected = ExpectedPathError(tracee, pointer);
  if (!path) {
    if (path.error().code != expected) {
      Die("CopyPath failed otherwise than the kernel",
          std::to_string(path.error().code) + " instead of " + std::to_string(expected));
    }
    return;
  }
  if (expected != 0) Die("CopyPath succeeded where the kernel fails", std::to_string(expected));
  if (path->size() >= PATH_MAX || path->find('\0') != std::string::npos ||
      path->compare(0, path->size(), reinterpret_cast<const char*>(tracee.Bytes(pointer)),
                    path->size()) != 0) {
    Die("CopyPath copied something else", *path);
  }
  const vigil::sentry::ThreadStatus thread{.ns_tgid = 7, .ns_tid = 9};
  Result<std::string> in_container = ContainerPath(tracee, thread, AT_FDCWD, *path);
  if (!in_container) Die("a path relative to / failed", in_container.error().message);
  if (!in_container->starts_with('/') || in_container->find("//") != std::string::npos) {
    Die("ContainerPath is not absolute and collapsed", *in_container);
  }
  if (RewriteSelf(*in_container, thread) != *in_container) Die("RewriteSelf twice differs", *path);
}

void DecodeMessage(FakeTracee& tracee, const vigil::sentry::Sandbox& sandbox,
                   std::uint64_t pointer) {
  msghdr message{};
  if (!tracee.Read(pointer, std::as_writable_bytes(std::span(&message, 1)))) return;
  if (message.msg_name != nullptr && message.msg_namelen != 0) {
    DecodeDestination(tracee, sandbox, reinterpret_cast<std::uint64_t>(message.msg_name),
                      message.msg_namelen);
  }
  Result<std::vector<char>> payload = CopyPayload(tracee, message);
  if (!payload) return CheckError(payload.error(), {EMSGSIZE, EFAULT}, "a payload error");
  if (payload->size() > vigil::sentry::kMaxPayload) Die("a payload past the limit", "");
  Result<std::vector<char>> control = CopyControl(tracee, message);
  if (!control) return CheckError(control.error(), {ENOBUFS, EFAULT}, "a control error");
  const std::size_t control_size = control->size();
  std::vector<vigil::UniqueFd> held;
  control = TranslateControl(tracee, std::move(*control), held);
  if (!control) {
    return CheckError(control.error(), {EINVAL, EPERM, EBADF}, "a translation error");
  }
  if (control->size() != control_size) Die("translation resized the control data", "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> input(data, size);
  const Header header = ReadHeader(input);
  FakeTracee tracee = FakeTracee::Sealed(input.subspan(std::min(size, kHeader)), header.fill);
  vigil::sentry::Sandbox sandbox;
  sandbox.policy = &PolicyFor(header.sandbox & 3);
  sandbox.own_network = (header.sandbox & 4) != 0;
  const std::uint64_t pointer = PointerFor(header, tracee);
  switch (header.op) {
    case 0:
      DecodeDestination(tracee, sandbox, pointer, header.length);
      break;
    case 1:
      DecodePath(tracee, pointer);
      break;
    default:
      DecodeMessage(tracee, sandbox, pointer);
      break;
  }
  return 0;
}
