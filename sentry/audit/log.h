// AuditLog: the sentry's audit writer. The supervisor's event loop is single
// threaded and a handler must never wait on the disk, so Append only encodes
// into memory; the loop writes the buffer out with Flush on a timer, early
// when WantsFlush says so, and at exit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/audit/record.h"

namespace vigil::sentry::audit {

// Size-capped rotation, as Docker's json-file driver does with max-size and
// max-file: once the file would pass `max_bytes`, it becomes PATH.1 (PATH.1
// becomes PATH.2, ..., the oldest beyond `max_files - 1` kept files is
// removed) and a new PATH is started. max_bytes 0: never rotated.
struct Rotation {
  std::uint64_t max_bytes = 0;
  std::uint32_t max_files = 1;  // the current file included; 1: no old ones kept
  bool operator==(const Rotation&) const = default;
};

class AuditLog {
 public:
  static constexpr std::size_t kDefaultCapacity = 1 << 20;
  // WantsFlush's threshold (lower for a smaller capacity: half of it).
  static constexpr std::size_t kHighWater = 64 << 10;

  // Opens `path` for appending (O_WRONLY|O_APPEND|O_CREAT|O_CLOEXEC, mode
  // 0600); its directory must exist. `capacity_bytes` bounds the records held
  // between flushes.
  static Result<AuditLog> Open(std::string path, std::size_t capacity_bytes = kDefaultCapacity);

  // Rotates the file by size from the next Flush on (Open'ed logs only).
  void SetRotation(Rotation rotation) { rotation_ = rotation; }

  // Writes to `fd`, which the caller opened (e.g. before entering the
  // container's mount namespace). `name` is only for error messages.
  static AuditLog Adopt(UniqueFd fd, std::string name,
                        std::size_t capacity_bytes = kDefaultCapacity);

  AuditLog(AuditLog&&) noexcept;
  AuditLog& operator=(AuditLog&&) noexcept;
  // Flushes what it can; an error then is lost (call Flush to see it).
  ~AuditLog();

  // Encodes `record` as one line into the buffer. No I/O, no waiting: when
  // the line does not fit in the capacity, the record is dropped and counted.
  void Append(const Record& record);

  // Adds the line {"time":`first_time`,"dropped":`count`} now, for records
  // dropped before they reached the log (AuditWriter's full ring); they are
  // counted in dropped() too.
  void AppendDropped(std::uint64_t count, std::string_view first_time);

  // Writes the buffered lines, retrying short writes, rotating the file
  // first when they would take it past its cap (SetRotation). After records were
  // dropped, the line {"time":T,"dropped":N} follows the last record kept
  // before the gap (T: when the first of the N was dropped). On an error
  // the unwritten bytes stay buffered for the next Flush.
  Result<void> Flush();

  // True once the buffer passes the high-water mark: flush soon.
  [[nodiscard]] bool WantsFlush() const { return buffer_.size() >= high_water_; }

  // Records dropped since Open, whether reported in the file yet or not.
  [[nodiscard]] std::uint64_t dropped() const { return dropped_; }
  // Bytes waiting for Flush.
  [[nodiscard]] std::size_t pending_bytes() const { return buffer_.size(); }
  [[nodiscard]] int fd() const { return fd_.Get(); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  AuditLog(UniqueFd fd, std::string path, std::size_t capacity);
  void ReportDropped();
  // Rotates when the buffered lines would take the file past the cap.
  Result<void> RotateIfFull();
  void WriteDroppedLine(std::uint64_t count, std::string_view first_time);

  UniqueFd fd_;
  std::string path_;
  std::size_t capacity_;
  std::size_t high_water_;
  std::string buffer_;  // complete lines, reused between flushes
  // On the heap so that the log stays movable (a Writer is not).
  std::unique_ptr<json::Writer> writer_ = std::make_unique<json::Writer>();
  std::uint64_t dropped_ = 0;
  std::uint64_t unreported_ = 0;  // dropped since the last "dropped" line
  std::string first_drop_time_;
  Rotation rotation_;
  bool opened_by_path_ = false;  // Open, not Adopt: a path to rotate
};

}  // namespace vigil::sentry::audit
