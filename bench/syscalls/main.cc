// vigil-bench-syscalls: the probe bench/run runs on the host and inside each
// runtime's container. Static, so it needs nothing from the rootfs.
//
//   vigil-bench-syscalls ops [--ops a,b,...] [--ms N] [--pin CPU]
//       one JSON line per operation: {"op": NAME, "ns": NS_PER_CALL, ...};
//       the network operations (network_ops.h) only when --ops names them
//   vigil-bench-syscalls io --dir DIR --block BYTES --mib N
//       one JSON line: {"write_mib_s": ..., "read_mib_s": ...}
//   vigil-bench-syscalls list
//       one JSON line per operation: {"op": NAME, "what": DESCRIPTION}
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench/syscalls/file_io.h"
#include "bench/syscalls/network_ops.h"
#include "bench/syscalls/syscall_ops.h"

namespace vigil::bench {
namespace {

constexpr int kBatches = 5;

double TimeBatch(const Op& op, OpContext& context, std::uint64_t n) {
  auto start = std::chrono::steady_clock::now();
  op.run(context, n);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
}

// Grows the batch until it lasts about budget/kBatches, then times kBatches
// batches and keeps the median: one preemption does not move it.
bool Measure(const Op& op, double budget_ns, double& ns_per_call, std::uint64_t& per_batch) {
  static OpContext context;
  if (!op.setup(context)) {
    op.teardown(context);
    return false;
  }
  const double target = budget_ns / kBatches;
  std::uint64_t n = 1;
  for (;;) {
    double t = TimeBatch(op, context, n);
    if (t >= target || n >= (1ull << 32)) break;
    double scale = t > 0 ? target / t : 16.0;
    n = std::max<std::uint64_t>(n + 1, static_cast<std::uint64_t>(n * std::min(scale * 1.1, 16.0)));
  }
  std::vector<double> samples;
  for (int i = 0; i < kBatches; ++i) samples.push_back(TimeBatch(op, context, n) / n);
  op.teardown(context);
  std::sort(samples.begin(), samples.end());
  ns_per_call = samples[kBatches / 2];
  per_batch = n;
  return true;
}

bool Listed(std::string_view list, std::string_view name) {
  if (list.empty()) return true;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

const char* Flag(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return fallback;
}

int RunOps(int argc, char** argv) {
  std::string_view only = Flag(argc, argv, "--ops", "");
  double budget_ns = std::atof(Flag(argc, argv, "--ms", "200")) * 1e6;
  int pin = std::atoi(Flag(argc, argv, "--pin", "-1"));
  if (pin >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(pin, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      std::fprintf(stderr, "sched_setaffinity(%d): %s\n", pin, std::strerror(errno));
      return 1;
    }
  }
  int status = 0;
  auto run = [&](const Op& op) {
    double ns = 0;
    std::uint64_t n = 0;
    if (!Measure(op, budget_ns, ns, n)) {
      std::printf("{\"op\": \"%.*s\", \"error\": \"%s\"}\n", static_cast<int>(op.name.size()),
                  op.name.data(), std::strerror(errno));
      status = 1;
      return;
    }
    std::printf("{\"op\": \"%.*s\", \"ns\": %.2f, \"per_batch\": %llu, \"batches\": %d}\n",
                static_cast<int>(op.name.size()), op.name.data(), ns,
                static_cast<unsigned long long>(n), kBatches);
    std::fflush(stdout);
  };
  std::size_t count = 0;
  const Op* ops = Ops(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (Listed(only, ops[i].name)) run(ops[i]);
  }
  // The network's only by name: they need a nameserver and a server.
  const Op* network = NetworkOps(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!only.empty() && Listed(only, network[i].name)) run(network[i]);
  }
  return status;
}

int RunIo(int argc, char** argv) {
  const char* dir = Flag(argc, argv, "--dir", "/tmp");
  std::uint64_t block = std::strtoull(Flag(argc, argv, "--block", "4096"), nullptr, 10);
  std::uint64_t mib = std::strtoull(Flag(argc, argv, "--mib", "64"), nullptr, 10);
  if (block == 0 || (mib << 20) % block != 0) {
    std::fprintf(stderr, "--block must divide --mib MiB\n");
    return 2;
  }
  IoResult result;
  if (!MeasureFileIo(dir, block, mib << 20, result)) {
    std::fprintf(stderr, "file I/O in %s: %s\n", dir, std::strerror(errno));
    return 1;
  }
  std::printf("{\"write_mib_s\": %.1f, \"read_mib_s\": %.1f}\n", result.write_mib_s,
              result.read_mib_s);
  return 0;
}

int RunList() {
  for (auto table : {Ops, NetworkOps}) {
    std::size_t count = 0;
    const Op* ops = table(count);
    for (std::size_t i = 0; i < count; ++i) {
      std::printf("{\"op\": \"%.*s\", \"what\": \"%.*s\"}\n", static_cast<int>(ops[i].name.size()),
                  ops[i].name.data(), static_cast<int>(ops[i].what.size()), ops[i].what.data());
    }
  }
  return 0;
}

}  // namespace
}  // namespace vigil::bench

int main(int argc, char** argv) {
  std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "ops") return vigil::bench::RunOps(argc, argv);
  if (mode == "io") return vigil::bench::RunIo(argc, argv);
  if (mode == "list") return vigil::bench::RunList();
  std::fprintf(stderr,
               "usage: %s ops [--ops a,b] [--ms N] [--pin CPU] | io --dir D --block B "
               "--mib N | list\n",
               argv[0]);
  return 2;
}
