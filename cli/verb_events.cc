// vigil events: a container's cgroup usage and OOM kills as runc's event
// lines, {"type":"stats","id":"ID","data":{...}} and {"type":"oom","id":"ID"},
// with data in runc's types.Stats shape (what go-runc's Stats decodes):
// once with --stats, else every --interval until the container stops.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "base/units.h"
#include "cli/container_json.h"
#include "cli/verbs.h"
#include "lifecycle/inspect.h"
#include "lifecycle/memory_release.h"
#include "runtime/container/state_dir.h"

namespace vigil::cli {
namespace {

// Go's omitempty for the integer fields runc marks so.
void UintUnlessZero(json::Writer& w, std::string_view key, std::uint64_t value) {
  if (value == 0) return;
  w.UintMember(key, value);
}

// runc's types.MemoryEntry: limit and failcnt always, usage and max if set.
void WriteMemoryEntry(json::Writer& w, std::uint64_t limit, std::uint64_t usage, std::uint64_t max,
                      std::uint64_t failcnt) {
  w.BeginObject();
  w.UintMember("limit", limit);
  UintUnlessZero(w, "usage", usage);
  UintUnlessZero(w, "max", max);
  w.UintMember("failcnt", failcnt);
  w.EndObject();
}

// A section the host lacks is written with zero values, as Go encodes a
// zero struct, so the document always has the same shape.
void WriteCpu(json::Writer& w, const runtime::cgroup::CpuStats& cpu) {
  w.BeginObject();
  w.Key("usage");
  w.BeginObject();
  UintUnlessZero(w, "total", cpu.usage_total);
  if (!cpu.usage_percpu.empty()) {
    w.Key("percpu");
    w.BeginArray();
    for (std::uint64_t ns : cpu.usage_percpu) w.Uint(ns);
    w.EndArray();
  }
  w.UintMember("kernel", cpu.usage_kernel);
  w.UintMember("user", cpu.usage_user);
  w.EndObject();
  w.Key("throttling");
  w.BeginObject();
  UintUnlessZero(w, "periods", cpu.periods);
  UintUnlessZero(w, "throttledPeriods", cpu.throttled_periods);
  UintUnlessZero(w, "throttledTime", cpu.throttled_time);
  w.EndObject();
  w.EndObject();
}

void WriteMemory(json::Writer& w, const runtime::cgroup::MemoryStats& m) {
  w.BeginObject();
  UintUnlessZero(w, "cache", m.cache);
  w.Key("usage");
  WriteMemoryEntry(w, m.limit, m.usage, m.max_usage, m.failcnt);
  w.Key("swap");
  WriteMemoryEntry(w, m.swap_limit, m.swap_usage, 0, 0);
  if (!m.raw.empty()) {
    w.Key("raw");
    w.BeginObject();
    for (const auto& [key, value] : m.raw) {
      w.UintMember(key, value);
    }
    w.EndObject();
  }
  w.EndObject();
}

void WritePids(json::Writer& w, const runtime::cgroup::PidsStats& pids) {
  w.BeginObject();
  UintUnlessZero(w, "current", pids.current);
  UintUnlessZero(w, "limit", pids.limit);
  w.EndObject();
}

// One event line. Sections vigil does not measure (blkio, hugetlb, Intel
// RDT, network) are present but empty, as runc prints them on a host
// without those figures.
// runc's event for an OOM kill in the container: no data.
std::string OomEvent(const std::string& id) {
  json::Writer w;
  w.BeginObject();
  w.StringMember("type", "oom");
  w.StringMember("id", id);
  w.EndObject();
  return w.Take() + "\n";
}

// `paused_memory`: a paused container's (container_json.h), appended to
// runc's fields.
std::string StatsEvent(const std::string& id, const runtime::cgroup::Stats& stats,
                       const lifecycle::PausedMemory* paused_memory = nullptr) {
  json::Writer w;
  w.BeginObject();
  w.StringMember("type", "stats");
  w.StringMember("id", id);
  w.Key("data");
  w.BeginObject();
  w.Key("cpu");
  WriteCpu(w, stats.cpu.value_or(runtime::cgroup::CpuStats{}));
  w.Key("memory");
  WriteMemory(w, stats.memory.value_or(runtime::cgroup::MemoryStats{}));
  w.Key("pids");
  WritePids(w, stats.pids.value_or(runtime::cgroup::PidsStats{}));
  for (const char* empty : {"blkio", "hugetlb", "intel_rdt"}) {
    w.Key(empty);
    w.BeginObject();
    w.EndObject();
  }
  w.Key("network_interfaces");
  w.Null();
  if (paused_memory != nullptr) {
    w.Key("paused_memory");
    WritePausedMemory(w, *paused_memory);
  }
  w.EndObject();
  w.EndObject();
  return w.Take() + "\n";
}

void Print(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);  // a reader waits on each line, not on a full buffer
}

}  // namespace

const FlagSpec kEventsFlags[2] = {
    {"interval", "", true, "DURATION",
     "time between stats lines, as \"5s\" (default) or \"500ms\""},
    {"stats", "", false, "", "print the stats once and exit"},
};

Result<int> RunEvents(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("container id required");
  if (args.size() > 1) return Fail(StrCat("unexpected argument ", Quote(args[1])));
  const std::string& id = args[0];
  std::chrono::nanoseconds interval = std::chrono::seconds(5);
  if (auto text = invocation.flags.Value("interval")) {
    ASSIGN_OR_RETURN(interval, ParseGoDuration("--interval", *text));
  }
  if (interval.count() <= 0) return Fail("duration interval must be greater than 0");
  const std::string& root = invocation.global.root;
  if (invocation.flags.IsSet("stats")) {
    ASSIGN_OR_RETURN(runtime::cgroup::Stats stats, lifecycle::ContainerStats(root, id));
    std::optional<lifecycle::PausedMemory> memory;
    if (Result<runtime::ContainerRecord> record = runtime::ReadRecord(root, id)) {
      memory = lifecycle::MemoryIfPaused(root, *record);
    }
    Print(StatsEvent(id, stats, memory ? &*memory : nullptr));
    return 0;
  }
  RETURN_IF_ERROR(lifecycle::WatchContainerEvents(
      root, id, interval,
      {.stats = [&](const runtime::cgroup::Stats& stats) { Print(StatsEvent(id, stats)); },
       .oom = [&] { Print(OomEvent(id)); }}));
  return 0;
}

}  // namespace vigil::cli
