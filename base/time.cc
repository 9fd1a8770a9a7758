#include "base/time.h"

namespace vigil {
namespace {

// The calendar text of the last second formatted on this thread: gmtime_r
// and strftime cost more than the rest of an audit record together.
struct CachedSecond {
  time_t second = -1;
  char text[32] = {};
  std::size_t length = 0;
};

}  // namespace

void FormatRfc3339Nano(const timespec& ts, std::string& out) {
  thread_local CachedSecond cached;
  if (ts.tv_sec != cached.second || cached.length == 0) {
    tm utc{};
    gmtime_r(&ts.tv_sec, &utc);
    cached.length = strftime(cached.text, sizeof cached.text, "%Y-%m-%dT%H:%M:%S", &utc);
    cached.second = ts.tv_sec;
  }
  out.assign(cached.text, cached.length);
  char fraction[] = ".000000000Z";
  long nanos = ts.tv_nsec;
  for (int digit = 9; digit >= 1; --digit) {
    fraction[digit] = static_cast<char>('0' + nanos % 10);
    nanos /= 10;
  }
  out.append(fraction, sizeof fraction - 1);
}

std::string Rfc3339NanoNow() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  std::string out;
  FormatRfc3339Nano(ts, out);
  return out;
}

}  // namespace vigil
