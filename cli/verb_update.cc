// vigil update: change a live container's cgroup limits. containerd sends
// `update --resources=- ID` with a runtime-spec LinuxResources document on
// stdin; people use the flags, which runc spells the same way.
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "base/strings.h"
#include "base/units.h"
#include "cli/verbs.h"
#include "config/oci/sections.h"
#include "lifecycle/update.h"

namespace vigil::cli {
namespace {

// Resource documents are a few hundred bytes; a device list makes a few KiB.
constexpr std::size_t kMaxResourcesBytes = 4u << 20;

Result<std::string> ReadStdin() {
  std::string text;
  char buf[8192];
  while (true) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno("read standard input");
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxResourcesBytes) {
      return Fail(StrCat("standard input holds more than ", kMaxResourcesBytes, " bytes"));
    }
  }
}

// --resources FILE, or - for standard input: the document's "linux.resources"
// object on its own. Errors name the property as it sits in config.json.
Result<config::Resources> ReadResources(const std::string& source) {
  std::string text;
  if (source == "-") {
    ASSIGN_OR_RETURN(text, ReadStdin());
  } else {
    ASSIGN_OR_RETURN(text, ReadFile(source, kMaxResourcesBytes));
  }
  std::string name = source == "-" ? "standard input" : source;
  Result<json::Document> doc = json::Document::Parse(text);
  if (!doc) return tl::unexpected(std::move(doc).error().Wrap(StrCat("--resources ", name)));
  config::Resources resources;
  RETURN_IF_ERROR(
      config::Decode(doc->root(), config::JsonPath().Key("linux").Key("resources"), resources));
  return resources;
}

template <typename T>
Result<T> ParseInteger(std::string_view flag, std::string_view text) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Fail(StrCat("--", flag, ": expected ",
                       std::is_signed_v<T> ? "an integer" : "a non-negative integer", ", got ",
                       Quote(text)));
  }
  return value;
}

config::Memory& MemoryOf(config::Resources& r) { return r.memory ? *r.memory : r.memory.emplace(); }
config::Cpu& CpuOf(config::Resources& r) { return r.cpu ? *r.cpu : r.cpu.emplace(); }

// The flags' values over whatever --resources gave.
Result<void> ApplyFlags(const ParsedFlags& flags, config::Resources& r) {
  struct BytesFlag {
    std::string_view name;
    std::optional<std::int64_t> config::Memory::*member;
  };
  for (const BytesFlag& f : {BytesFlag{"memory", &config::Memory::limit},
                             BytesFlag{"memory-reservation", &config::Memory::reservation},
                             BytesFlag{"memory-swap", &config::Memory::swap}}) {
    if (auto v = flags.Value(f.name)) {
      ASSIGN_OR_RETURN(MemoryOf(r).*f.member, ParseBytes(StrCat("--", f.name), *v));
    }
  }
  struct UnsignedFlag {
    std::string_view name;
    std::optional<std::uint64_t> config::Cpu::*member;
  };
  for (const UnsignedFlag& f : {UnsignedFlag{"cpu-share", &config::Cpu::shares},
                                UnsignedFlag{"cpu-shares", &config::Cpu::shares},
                                UnsignedFlag{"cpu-period", &config::Cpu::period},
                                UnsignedFlag{"cpu-burst", &config::Cpu::burst},
                                UnsignedFlag{"cpu-rt-period", &config::Cpu::realtime_period}}) {
    if (auto v = flags.Value(f.name)) {
      ASSIGN_OR_RETURN(CpuOf(r).*f.member, ParseInteger<std::uint64_t>(f.name, *v));
    }
  }
  struct SignedFlag {
    std::string_view name;
    std::optional<std::int64_t> config::Cpu::*member;
  };
  for (const SignedFlag& f : {SignedFlag{"cpu-quota", &config::Cpu::quota},
                              SignedFlag{"cpu-rt-runtime", &config::Cpu::realtime_runtime},
                              SignedFlag{"cpu-idle", &config::Cpu::idle}}) {
    if (auto v = flags.Value(f.name)) {
      ASSIGN_OR_RETURN(CpuOf(r).*f.member, ParseInteger<std::int64_t>(f.name, *v));
    }
  }
  if (auto v = flags.Value("cpuset-cpus"); v && !v->empty()) CpuOf(r).cpus = *v;
  if (auto v = flags.Value("cpuset-mems"); v && !v->empty()) CpuOf(r).mems = *v;
  // As in runc, 0 leaves these alone.
  if (auto v = flags.Value("pids-limit")) {
    ASSIGN_OR_RETURN(std::int64_t limit, ParseInteger<std::int64_t>("pids-limit", *v));
    if (limit != 0) r.pids = config::Pids{.limit = limit};
  }
  if (auto v = flags.Value("blkio-weight")) {
    ASSIGN_OR_RETURN(std::uint16_t weight, ParseInteger<std::uint16_t>("blkio-weight", *v));
    if (weight != 0) {
      if (!r.block_io) r.block_io.emplace();
      r.block_io->weight = weight;
    }
  }
  return {};
}

}  // namespace

const FlagSpec kUpdateFlags[20] = {
    {"resources", "r", true, "FILE",
     "linux.resources as JSON from FILE, or - for standard input; flags override it"},
    {"memory", "", true, "BYTES", "memory limit (k, m, g suffixes; -1: unlimited)"},
    {"memory-reservation", "", true, "BYTES", "memory soft limit"},
    {"memory-swap", "", true, "BYTES", "memory+swap limit (-1: unlimited)"},
    {"cpu-share", "", true, "N", "CPU shares (relative weight)"},
    {"cpu-shares", "", true, "N", "the same as --cpu-share"},
    {"cpu-period", "", true, "USEC", "CFS period"},
    {"cpu-quota", "", true, "USEC", "CFS quota per period (-1: unlimited)"},
    {"cpu-burst", "", true, "USEC", "CFS burst"},
    {"cpu-rt-period", "", true, "USEC", "real-time period"},
    {"cpu-rt-runtime", "", true, "USEC", "real-time runtime per period"},
    {"cpu-idle", "", true, "0|1", "1: SCHED_IDLE for the cgroup"},
    {"cpuset-cpus", "", true, "LIST", "CPUs to use, e.g. 0-3,7"},
    {"cpuset-mems", "", true, "LIST", "memory nodes to use"},
    {"pids-limit", "", true, "N", "maximum number of tasks (-1: unlimited; 0: unchanged)"},
    {"blkio-weight", "", true, "N", "block IO weight, 10-1000 (0: unchanged)"},
    // Accepted and ignored, as runc 1.1 does: the kernel deprecated v1's
    // kernel memory limits (memory.kmem.limit_in_bytes).
    {"kernel-memory", "", true, "BYTES", "accepted and ignored (no kernel memory limits)"},
    {"kernel-memory-tcp", "", true, "BYTES", "accepted and ignored"},
    {"l3-cache-schema", "", true, "SCHEMA", "Intel RDT: refused (vigil does not support it)"},
    {"mem-bw-schema", "", true, "SCHEMA", "Intel RDT: refused (vigil does not support it)"},
};

Result<int> RunUpdate(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("container id required");
  if (args.size() > 1) return Fail(StrCat("unexpected argument ", Quote(args[1])));
  config::Resources changes;
  if (auto source = invocation.flags.Value("resources"); source && !source->empty()) {
    ASSIGN_OR_RETURN(changes, ReadResources(*source));
  }
  for (const char* rdt : {"l3-cache-schema", "mem-bw-schema"}) {
    if (invocation.flags.Value(rdt)) {
      return Fail(StrCat("--", rdt, ": Intel RDT (resctrl) is not supported by vigil"));
    }
  }
  RETURN_IF_ERROR(ApplyFlags(invocation.flags, changes));
  RETURN_IF_ERROR(lifecycle::UpdateContainer(invocation.global.root, args[0], changes));
  return 0;
}

}  // namespace vigil::cli
