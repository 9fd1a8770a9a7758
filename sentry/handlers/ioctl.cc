// ioctl under a file policy, for the commands that change a file's inode
// through any descriptor of it: the kernel asks for ownership, not for a
// descriptor open for writing, so the flags of a file the policy keeps
// read-only (opened O_RDONLY, as allowed) could be changed on a writable
// mount. The BPF guard sends only the command types those belong to; the
// others among them are let through as asked, decided on the command's
// number alone. The changing ones are decided on the descriptor's file
// (write access, like fchmod) and performed by the sentry on it, with the
// argument copied once, as the workload.
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <sys/ioctl.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <span>
#include <variant>

#include "sentry/core/acting_as.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

// ext4's, not in the uapi headers: rewrites an inode's block map as extents.
constexpr unsigned int kExt4MigrateToExtents = _IO('f', 9);

enum class Kind { kLetThrough, kPerform, kRefuse };

struct Command {
  Kind kind = Kind::kLetThrough;
  std::size_t argument = 0;  // bytes the kernel reads from arg 2
};

Command CommandOf(unsigned int number) {
  switch (number) {
    // The kernel reads an int for both, whatever size the encoding says.
    case FS_IOC_SETFLAGS:
    case FS_IOC32_SETFLAGS:
    case FS_IOC_SETVERSION:
    case FS_IOC32_SETVERSION:
      return {Kind::kPerform, sizeof(int)};
    case FS_IOC_FSSETXATTR:
      return {Kind::kPerform, sizeof(fsxattr)};
    case kExt4MigrateToExtents:
      return {Kind::kPerform, 0};
    // Their arguments lead on to more workload memory (a salt, a signature,
    // a versioned policy); rare in a container, refused as a filesystem
    // without them would.
    case FS_IOC_ENABLE_VERITY:
    case FS_IOC_SET_ENCRYPTION_POLICY:
      return {Kind::kRefuse, 0};
    default:
      return {};
  }
}

}  // namespace

Result<Verdict> HandleIoctl(HandlerContext& context) {
  const int fd = static_cast<int>(context.event.args[0]);
  const auto number = static_cast<unsigned int>(context.event.args[1]);
  const Command command = CommandOf(number);
  if (command.kind == Kind::kLetThrough) return Verdict::Continue();
  std::array<char, 16> text{};
  std::snprintf(text.data(), text.size(), "0x%x", number);
  context.AuditArg("request", text.data());
  if (command.kind == Kind::kRefuse) return Verdict::Fail(EOPNOTSUPP, Decision::kDeny);
  std::array<std::byte, sizeof(fsxattr)> argument{};
  const std::span<std::byte> copied(argument.data(), command.argument);
  if (!copied.empty()) {
    RETURN_IF_ERROR(context.tracee.Read(context.event.args[2], copied));
    if (!context.tracee.Valid()) return Verdict::Stale();
  }
  ASSIGN_OR_RETURN(UniqueFd file, context.tracee.Descriptor(fd));
  ASSIGN_OR_RETURN(std::string root_path, context.tracee.RootPath());
  std::variant<std::string, Verdict> decided =
      DecideOnFile(context, file.Get(), root_path, /*write=*/true);
  if (Verdict* refused = std::get_if<Verdict>(&decided)) return std::move(*refused);
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  if (!context.tracee.Valid()) return Verdict::Stale();
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(thread, context.sandbox.user_namespace));
  if (::ioctl(file.Get(), number, argument.data()) != 0)
    return Verdict::Fail(errno, Decision::kAllow);
  return Verdict::Return(0, Decision::kAllow);
}

}  // namespace vigil::sentry
