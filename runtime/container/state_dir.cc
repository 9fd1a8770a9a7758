#include "runtime/container/state_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>

#include "base/file.h"
#include "base/strings.h"
#include "config/oci/config.h"
#include "runtime/linux/namespaces.h"

namespace vigil::runtime {
namespace {

constexpr std::size_t kMaxRecordBytes = 1 << 20;
constexpr std::size_t kMaxConfigBytes = 8 << 20;

Result<UniqueFd> LockDirectory(const std::string& path) {
  UniqueFd fd(::open((path + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd) return FailErrno(StrCat("open ", path, "/lock"));
  while (::flock(fd.Get(), LOCK_EX) != 0) {
    if (errno != EINTR) return FailErrno(StrCat("lock ", path));
  }
  return fd;
}

std::string DoesNotExist(const std::string& id) {
  // containerd matches on "does not exist"; keep the phrase.
  return StrCat("container ", Quote(id), " does not exist");
}

}  // namespace

Result<void> ValidateId(std::string_view id) {
  auto allowed = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '+' || c == '-' || c == '.';
  };
  if (id.empty() || id.size() > 1024 || !std::all_of(id.begin(), id.end(), allowed)) {
    return Fail(
        StrCat("invalid container id ", Quote(id), ": use letters, digits, '_', '+', '-' and '.'"));
  }
  if (id.starts_with('.')) {
    return Fail(StrCat("invalid container id ", Quote(id),
                       ": it may not start with '.' (names so in the state root are vigil's)"));
  }
  return {};
}

std::string KeptAuditLogPath(const std::string& root, std::string_view id) {
  return StrCat(root, "/", kKeptAuditDir, "/", id, ".jsonl");
}

std::string DefaultStateRoot(bool host_root, uid_t euid, std::string_view xdg_runtime_dir,
                             std::string_view tmpdir) {
  if (host_root) return "/run/vigil";
  if (!xdg_runtime_dir.empty()) return StrCat(xdg_runtime_dir, "/vigil");
  return StrCat(tmpdir.empty() ? "/tmp" : tmpdir, "/vigil-", euid);
}

std::string DefaultStateRoot() {
  auto variable = [](const char* name) {
    const char* value = ::getenv(name);
    return std::string_view(value == nullptr ? "" : value);
  };
  return DefaultStateRoot(IsHostRoot(), ::geteuid(), variable("XDG_RUNTIME_DIR"),
                          variable("TMPDIR"));
}

Result<StateDir> StateDir::Create(const std::string& root, const std::string& id) {
  RETURN_IF_ERROR(ValidateId(id));
  std::error_code ec;
  // Only its user may list the containers (runc makes its root 0700 too).
  if (std::filesystem::create_directories(root, ec)) {
    std::filesystem::permissions(root, std::filesystem::perms::owner_all, ec);
  }
  if (ec) return FailErrno(ec.value(), StrCat("create state root ", root));
  // A root in a shared directory (/tmp) could be another user's, made
  // ahead to read or swap what is put there.
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0) return FailErrno(StrCat("stat state root ", root));
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) {
    char mode[8];
    const char* end = std::to_chars(mode, mode + sizeof mode, st.st_mode & 07777, 8).ptr;
    return Fail(StrCat("state root ", root, " is not a directory of uid ", ::geteuid(),
                       " that only it may write (owner ", st.st_uid, ", mode 0",
                       std::string_view(mode, end - mode), ")"));
  }
  std::string path = StrCat(root, "/", id);
  if (::mkdir(path.c_str(), 0711) != 0) {
    if (errno == EEXIST) return Fail(StrCat("container with id ", Quote(id), " already exists"));
    return FailErrno(StrCat("create ", path));
  }
  Result<UniqueFd> lock = LockDirectory(path);
  if (!lock) {
    std::filesystem::remove_all(path, ec);
    return tl::unexpected(lock.error());
  }
  return StateDir(root, id, std::move(*lock));
}

Result<StateDir> StateDir::Open(const std::string& root, const std::string& id) {
  RETURN_IF_ERROR(ValidateId(id));
  std::string path = StrCat(root, "/", id);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Fail(DoesNotExist(id));
    return FailErrno(StrCat("stat ", path));
  }
  ASSIGN_OR_RETURN(UniqueFd lock, LockDirectory(path));
  // A concurrent delete may have removed the directory while we waited.
  if (::access((path + "/state.json").c_str(), F_OK) != 0 && errno == ENOENT) {
    return Fail(DoesNotExist(id));
  }
  return StateDir(root, id, std::move(lock));
}

Result<ContainerRecord> StateDir::LoadRecord() const {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path_ + "/state.json", kMaxRecordBytes));
  return ParseRecord(text);
}

Result<void> StateDir::SaveRecord(const ContainerRecord& record) const {
  return WriteFileAtomic(path_ + "/state.json", DumpRecord(record), 0600, /*overwrite=*/true,
                         Durability::kSkipFsync);
}

Result<config::Spec> StateDir::LoadConfig() const {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path_ + "/config.json", kMaxConfigBytes));
  return config::ParseSpec(text);
}

Result<void> StateDir::SaveConfig(const config::Spec& spec) const {
  return WriteFileAtomic(path_ + "/config.json",
                         config::DumpSpec(spec, json::Writer::Style::kCompact), 0600,
                         /*overwrite=*/true, Durability::kSkipFsync);
}

Result<void> StateDir::Remove() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  if (ec) return FailErrno(ec.value(), StrCat("remove ", path_));
  lock_.Reset();
  return {};
}

Result<ContainerRecord> ReadRecord(const std::string& root, const std::string& id) {
  RETURN_IF_ERROR(ValidateId(id));
  Result<std::string> text = ReadFile(StrCat(root, "/", id, "/state.json"), kMaxRecordBytes);
  if (!text) {
    if (text.error().code == ENOENT) return Fail(DoesNotExist(id));
    return tl::unexpected(text.error());
  }
  return ParseRecord(*text);
}

}  // namespace vigil::runtime
