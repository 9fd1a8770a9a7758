// RepeatLimiter: floods of identical audit records, collapsed into a count.
//
// A workload that makes the same mediated call in a loop (a stat of one
// path, a refused connect) would otherwise have its supervisor write a
// record per call: megabytes a second of audit, and CPU to encode them.
// Records of one kind -- same executable, syscall, arguments, decision and
// errno; time, process, thread and latency aside, so that a loop forking a
// process per call is one kind too -- are written
// `burst` at a time per `window`; the rest of the window's are counted, and
// the count comes out as one summary record of that kind carrying
// `suppressed: N` ("N more records like this one were not written"), due
// when the kind appears again after its window (then just after that
// record), at Sweep, or at the end. Nothing is dropped without a count,
// denials included.
//
// The kinds are kept in a fixed table (no allocation per record but one
// copy of a record when its kind starts being suppressed); a kind pushed
// out of its slot by another first hands over its count.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sentry/audit/record.h"

namespace vigil::sentry::audit {

class RepeatLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    std::uint32_t burst = 20;  // records of a kind written per window
    std::chrono::milliseconds window{1000};
    std::size_t kinds = 256;  // slots in the table
  };

  explicit RepeatLimiter(Limits limits);
  RepeatLimiter() : RepeatLimiter(Limits{}) {}

  // Whether `record` is to be written (true) or was counted as a repeat
  // (false). A summary that falls due (its kind's window is over, or its
  // slot is taken by another kind) joins due(), timed as `record`.
  bool Admit(const Record& record, Clock::time_point now);

  // Moves every count of a window that is over into due() (all of them
  // when `all`: the container ended), as summaries timed `time`.
  void Sweep(Clock::time_point now, const std::string& time, bool all = false);

  // Summaries to write, oldest first; the caller writes and clears them.
  [[nodiscard]] std::vector<Record>& due() { return due_; }

  // Records counted as repeats so far.
  [[nodiscard]] std::uint64_t suppressed() const { return suppressed_total_; }

 private:
  struct Kind {
    std::uint64_t hash = 0;
    bool used = false;
    Clock::time_point window_start;
    std::uint32_t written = 0;     // in this window
    std::uint64_t suppressed = 0;  // in this window
    Record exemplar;               // the first suppressed one, when suppressed > 0
  };

  void Release(Kind& kind, const std::string& time);

  Limits limits_;
  std::vector<Kind> kinds_;
  std::vector<Record> due_;
  std::uint64_t suppressed_total_ = 0;
};

// Whether two records are of one kind (RepeatLimiter's sense).
bool SameKind(const Record& a, const Record& b);

}  // namespace vigil::sentry::audit
