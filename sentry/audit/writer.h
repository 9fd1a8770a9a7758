// AuditWriter: the audit log on a thread of its own. Encoding a record with
// yajl costs about a microsecond, and the supervisor's loop is where every
// workload thread waits for its answer; so the loop only fills a slot of a
// bounded ring (Claim, Commit) and the writer thread encodes and writes
// (AuditLog), every `period` or sooner when the ring is half full. When the
// ring is full a record is dropped and counted, and the log says where
// ({"time":T,"dropped":N}), as AuditLog does when its buffer is.
//
// One producer: Claim, Commit and Flush are called from one thread (the
// loop). The writer thread has every signal blocked and makes no system
// call but poll, read and write on descriptors it was given, and futex.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/audit/log.h"
#include "sentry/audit/record.h"

namespace vigil::sentry::audit {

class AuditWriter {
 public:
  static constexpr std::size_t kDefaultSlots = 1024;

  // Starts the writer thread, which owns `log` from here on.
  static Result<std::unique_ptr<AuditWriter>> Start(AuditLog log, std::chrono::milliseconds period,
                                                    std::size_t slots = kDefaultSlots);
  AuditWriter(const AuditWriter&) = delete;
  AuditWriter& operator=(const AuditWriter&) = delete;
  // Writes everything committed, then ends the thread.
  ~AuditWriter();

  // The record to fill in next, or null when the ring is full (the record
  // is dropped and counted). A slot keeps its strings' capacity from the
  // last time round, so filling it allocates nothing. Commit publishes it.
  Record* Claim();
  void Commit();
  // Gives back the slot Claim returned, uncommitted (the record is not to
  // be written after all); the next Claim returns it again.
  void Abandon();

  // Returns once every record committed before the call has been written
  // (or its write failed, which the writer logs, keeping the lines for the
  // next try).
  void Flush();

  // Records dropped because the ring was full.
  [[nodiscard]] std::uint64_t dropped() const { return dropped_; }

 private:
  struct Slot {
    Record record;
    std::uint64_t dropped_before = 0;  // ring drops just before this record
    std::string first_drop_time;       // when the first of them was dropped
  };
  struct SlotsDeleter {
    std::size_t allocated = 0;
    std::size_t constructed = 0;
    void operator()(Slot* slots) const;
  };

  AuditWriter(AuditLog log, std::chrono::milliseconds period, std::size_t slots, UniqueFd wake);
  static void* ThreadMain(void* self);
  void Run();
  // Encodes every committed record into the log and writes it out.
  void Drain();
  void Wake() const;
  // Drops not yet attached to a record, for the writer to report.
  void HandOverDrops();

  AuditLog log_;  // the writer thread's alone once it runs
  const std::chrono::milliseconds period_;
  const std::size_t slot_count_;
  // Raw storage, constructed slot by slot as the producer first reaches
  // each: the pages of a ring an idle sandbox never fills stay untouched.
  std::unique_ptr<Slot[], SlotsDeleter> slots_;
  UniqueFd wake_;  // eventfd: the producer kicks, the writer polls
  pthread_t thread_{};
  bool running_ = false;

  std::atomic<std::uint64_t> head_{0};  // next slot to claim (producer)
  std::atomic<std::uint64_t> tail_{0};  // next slot to write (writer)
  std::atomic<std::uint64_t> flush_requests_{0};
  std::atomic<std::uint64_t> flushes_done_{0};
  std::atomic<bool> started_{false};  // the thread runs Run
  std::atomic<bool> stopping_{false};

  // The producer's drop bookkeeping until the next record carries it.
  std::uint64_t dropped_ = 0;
  std::uint64_t unattached_drops_ = 0;
  std::string first_unattached_drop_;
  // Drops handed over without a record after them (Flush, the end).
  std::mutex handed_over_mutex_;
  std::uint64_t handed_over_drops_ = 0;
  std::string handed_over_time_;
};

}  // namespace vigil::sentry::audit
