// A handler's answer to one syscall, and how the audit log names it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "sentry/audit/record.h"

namespace vigil::sentry {

// The kernel's ERESTARTSYS (not in the uapi headers), a Verdict's error for
// a call a signal interrupted: answered through seccomp user notification
// while the signal is pending, the kernel restarts the call after the
// handler if it has SA_RESTART and makes it EINTR if not. The ptrace
// platform answers EINTR (its skipped call cannot be restarted).
inline constexpr int kRestartSys = 512;

// kAllow: performed on the workload's behalf, as asked; kDeny: refused by
// the policy; kEmulate: answered by the sentry without the host kernel
// doing it; kKill: the workload was killed.
using Decision = audit::Decision;

// One decoded argument of a decision for its audit record, a path as
// resolved; `is_number`: written as a JSON number (audit::Arg).
struct AuditValue {
  std::string name;
  std::string value;
  bool is_number = false;
  bool operator==(const AuditValue&) const = default;
};
using AuditArgs = std::vector<AuditValue>;

// A file by identity: what an exec maps, compared across path lookups.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};

struct Verdict {
  enum class Kind : std::uint8_t {
    kReturn,     // the syscall returns `value`, or fails with `error` if non-zero
    kStale,      // the syscall no longer waits (the thread died): answer nothing
    kInstallFd,  // the syscall returns `fd`, installed in the workload
    // The kernel runs the syscall as the workload asked. Only for a decision
    // made on registers: memory read before could change before the kernel
    // reads it (seccomp_unotify(2), docs/design.md, rule 2); or where the
    // policy answers the same whatever the memory names (docs/security.md,
    // "Where the sentry lets the kernel act").
    kContinue,
  };
  Kind kind = Kind::kReturn;
  Decision decision = Decision::kEmulate;
  std::int64_t value = 0;
  int error = 0;
  // kInstallFd: the sentry's descriptor for the workload's new one, and
  // whether that is close-on-exec.
  std::shared_ptr<UniqueFd> fd;
  bool cloexec = false;
  // kInstallFd of a file the sentry made for the call: removes it again
  // when the workload does not get the descriptor (EMFILE at its
  // RLIMIT_NOFILE: the kernel looks for a free descriptor before it makes
  // anything), so the call leaves nothing behind.
  std::function<void()> undo;
  // kContinue of an exec: the program image the kernel must end up mapping.
  // The kernel looks the path up again after the check, so the backend
  // verifies the mapped file once the exec is done, before the new program
  // runs, and kills the process if it is another (nullopt: any image is
  // another, as when the approved file's interpreter could not be found),
  // and the ELF interpreter it maps beside it (nullopt: none may be).
  bool verify_exec = false;
  std::optional<FileId> exec_image;
  std::optional<FileId> exec_interpreter;

  static Verdict InstallFd(UniqueFd file, bool cloexec, Decision decision) {
    return {.kind = Kind::kInstallFd,
            .decision = decision,
            .fd = std::make_shared<UniqueFd>(std::move(file)),
            .cloexec = cloexec};
  }

  static Verdict Return(std::int64_t value, Decision decision) {
    return {.decision = decision, .value = value};
  }
  static Verdict Fail(int error, Decision decision) {
    return {.decision = decision, .error = error};
  }
  static Verdict Stale() { return {.kind = Kind::kStale}; }
  static Verdict Continue() { return {.kind = Kind::kContinue, .decision = Decision::kAllow}; }
  static Verdict ContinueExec(std::optional<FileId> image, std::optional<FileId> interpreter) {
    return {.kind = Kind::kContinue,
            .decision = Decision::kAllow,
            .verify_exec = true,
            .exec_image = image,
            .exec_interpreter = interpreter};
  }
};

}  // namespace vigil::sentry
