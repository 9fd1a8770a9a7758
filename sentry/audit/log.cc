#include "sentry/audit/log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/log.h"
#include "base/strings.h"
#include "base/time.h"

namespace vigil::sentry::audit {

AuditLog::AuditLog(UniqueFd fd, std::string path, std::size_t capacity)
    : fd_(std::move(fd)),
      path_(std::move(path)),
      capacity_(capacity),
      high_water_(std::min(kHighWater, capacity / 2)) {
  // Allocate once up front; clear() and erase() keep the capacity.
  buffer_.reserve(std::min(capacity_, kHighWater) + 256);
}

AuditLog::AuditLog(AuditLog&&) noexcept = default;
AuditLog& AuditLog::operator=(AuditLog&&) noexcept = default;

AuditLog::~AuditLog() {
  if (fd_) (void)Flush();
}

Result<AuditLog> AuditLog::Open(std::string path, std::size_t capacity_bytes) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
  if (!fd) return FailErrno(StrCat("open audit log ", path));
  AuditLog log(std::move(fd), std::move(path), capacity_bytes);
  log.opened_by_path_ = true;
  return log;
}

AuditLog AuditLog::Adopt(UniqueFd fd, std::string name, std::size_t capacity_bytes) {
  return AuditLog(std::move(fd), std::move(name), capacity_bytes);
}

void AuditLog::Append(const Record& record) {
  // One writer for every record, reset in between: its buffer is kept, so
  // encoding allocates nothing on the supervisor's hot path.
  writer_->Reset();
  WriteRecord(*writer_, record);
  std::string_view line = writer_->View();
  if (buffer_.size() + line.size() + 1 > capacity_) {
    if (unreported_ == 0) first_drop_time_ = Rfc3339NanoNow();
    ++dropped_;
    ++unreported_;
    return;
  }
  buffer_ += line;
  buffer_ += '\n';
}

void AuditLog::AppendDropped(std::uint64_t count, std::string_view first_time) {
  dropped_ += count;
  WriteDroppedLine(count, first_time);
}

void AuditLog::ReportDropped() {
  // Goes after the records kept so far: every record dropped since the last
  // flush came after them (the buffer was full), so the line marks the gap
  // where it is. It may take the buffer past its capacity by one short line.
  WriteDroppedLine(unreported_, first_drop_time_);
  unreported_ = 0;
}

void AuditLog::WriteDroppedLine(std::uint64_t count, std::string_view first_time) {
  json::Writer w;
  w.BeginObject();
  w.StringMember("time", first_time);
  w.UintMember("dropped", count);
  w.EndObject();
  buffer_ += w.View();
  buffer_ += '\n';
}

Result<void> AuditLog::RotateIfFull() {
  struct stat ours {};
  if (::fstat(fd_.Get(), &ours) != 0) return FailErrno(StrCat("stat audit log ", path_));
  const std::uint64_t size = static_cast<std::uint64_t>(ours.st_size);
  if (size == 0 || size + buffer_.size() <= rotation_.max_bytes) return {};
  // A log shared by several containers' supervisors (--audit) may have
  // been rotated by another already: then only the new file is opened.
  struct stat current {};
  const bool still_ours = ::stat(path_.c_str(), &current) == 0 && current.st_dev == ours.st_dev &&
                          current.st_ino == ours.st_ino;
  const std::uint32_t files = std::max<std::uint32_t>(rotation_.max_files, 1);
  if (still_ours) {
    for (std::uint32_t i = files - 1; i >= 2; --i) {
      (void)::rename(StrCat(path_, ".", i - 1).c_str(), StrCat(path_, ".", i).c_str());
    }
    const int moved =
        files >= 2 ? ::rename(path_.c_str(), StrCat(path_, ".1").c_str()) : ::unlink(path_.c_str());
    if (moved != 0) return FailErrno(StrCat("rotate audit log ", path_));
  }
  UniqueFd fresh(::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
  if (!fresh) return FailErrno(StrCat("open audit log ", path_));
  fd_ = std::move(fresh);
  return {};
}

Result<void> AuditLog::Flush() {
  if (unreported_ > 0) ReportDropped();
  if (opened_by_path_ && rotation_.max_bytes != 0 && !buffer_.empty()) {
    // On failure the lines go to the file as it is: over the cap, not lost.
    if (Result<void> rotated = RotateIfFull(); !rotated) log::Warning(rotated.error().message);
  }
  std::size_t written = 0;
  Result<void> result;
  while (written < buffer_.size()) {
    ssize_t n = ::write(fd_.Get(), buffer_.data() + written, buffer_.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      result = FailErrno(StrCat("write audit log ", path_));
      break;
    }
    if (n == 0) {  // not seen for files; never spin on it
      result = Fail(StrCat("write audit log ", path_, ": wrote nothing"));
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  buffer_.erase(0, written);
  return result;
}

}  // namespace vigil::sentry::audit
