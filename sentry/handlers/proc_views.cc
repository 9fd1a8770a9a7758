#include "sentry/handlers/proc_views.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <vector>

#include "base/proc.h"
#include "base/strings.h"

namespace vigil::sentry {
namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

// The host CPU numbers a container sees, in order.
std::vector<unsigned int> VisibleCpus(const CpuView& cpus) {
  std::vector<unsigned int> visible;
  for (unsigned int cpu = 0; cpu < 64; ++cpu) {
    if ((cpus.allowed_mask >> cpu) & 1) visible.push_back(cpu);
  }
  if (cpus.limit != 0 && visible.size() > cpus.limit) visible.resize(cpus.limit);
  return visible;
}

std::optional<unsigned int> Number(std::string_view text) {
  unsigned int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "Key:   12345 kB" as meminfo aligns it.
std::string MeminfoLine(std::string_view key, std::uint64_t bytes) {
  std::string number = StrCat(bytes / 1024);
  std::string label = StrCat(key, ":");
  const std::size_t width = 24;
  std::size_t pad = label.size() + number.size() < width ? width - label.size() - number.size() : 1;
  return StrCat(label, std::string(pad, ' '), number, " kB");
}

}  // namespace

std::string MeminfoView(std::string_view host, const std::optional<MemoryView>& memory) {
  if (!memory || memory->limit == 0) return std::string(host);
  const std::uint64_t host_total = KibFieldBytes(host, "MemTotal:");
  const std::uint64_t total = host_total == 0 ? memory->limit : std::min(memory->limit, host_total);
  const std::uint64_t used = std::min(memory->usage, total);
  const std::uint64_t cache = std::min(memory->cache, used);
  const std::map<std::string_view, std::uint64_t> replaced = {
      {"MemTotal", total},
      {"MemFree", total - used},
      {"MemAvailable", total - used + cache},
      {"Buffers", 0},
      {"Cached", cache},
      // The limit bounds memory and swap together as far as the workload
      // can tell (as sysinfo answers).
      {"SwapTotal", 0},
      {"SwapFree", 0},
      {"SwapCached", 0},
  };
  std::string out;
  for (std::string_view line : Lines(host)) {
    const std::string_view key = line.substr(0, line.find(':'));
    auto it = replaced.find(key);
    out += it == replaced.end() ? std::string(line) : MeminfoLine(key, it->second);
    out += '\n';
  }
  return out;
}

std::string CpuinfoView(std::string_view host, const CpuView& cpus) {
  const std::vector<unsigned int> visible = VisibleCpus(cpus);
  std::string out;
  std::string block;
  std::optional<unsigned int> processor;
  auto flush = [&] {
    if (processor) {
      auto at = std::find(visible.begin(), visible.end(), *processor);
      if (at != visible.end()) {
        // Renumbered: the container's CPU n is its n-th visible one.
        const std::string from = StrCat("processor\t: ", *processor, "\n");
        const std::string to = StrCat("processor\t: ", at - visible.begin(), "\n");
        if (block.starts_with(from)) block.replace(0, from.size(), to);
        out += block + "\n";
      }
    }
    block.clear();
    processor.reset();
  };
  for (std::string_view line : Lines(host)) {
    if (line.empty()) {
      flush();
      continue;
    }
    if (line.starts_with("processor")) {
      std::string_view value = line.substr(line.find(':') + 1);
      value.remove_prefix(std::min(value.find_first_not_of(' '), value.size()));
      processor = Number(value);
    }
    block += std::string(line) + "\n";
  }
  flush();
  return out;
}

std::string StatView(std::string_view host, const CpuView& cpus) {
  const std::vector<unsigned int> visible = VisibleCpus(cpus);
  std::vector<std::string> kept;   // "cpuN ..." lines, renumbered, in visible order
  std::vector<std::uint64_t> sum;  // their columns added up
  std::vector<std::string> rest;   // everything after the CPU lines
  std::map<unsigned int, std::string_view> per_cpu;
  for (std::string_view line : Lines(host)) {
    if (line.starts_with("cpu ")) continue;  // recomputed below
    if (line.starts_with("cpu")) {
      std::string_view name = line.substr(3, line.find(' ') - 3);
      if (std::optional<unsigned int> cpu = Number(name)) per_cpu[*cpu] = line;
      continue;
    }
    rest.emplace_back(line);
  }
  for (std::size_t n = 0; n < visible.size(); ++n) {
    auto it = per_cpu.find(visible[n]);
    if (it == per_cpu.end()) continue;
    std::string_view values = it->second.substr(it->second.find(' '));
    kept.push_back(StrCat("cpu", n, values));
    std::size_t column = 0;
    const char* p = values.data();
    const char* end = values.data() + values.size();
    while (p < end) {
      while (p < end && *p == ' ') ++p;
      std::uint64_t value = 0;
      auto [next, ec] = std::from_chars(p, end, value);
      if (ec != std::errc()) break;
      if (sum.size() <= column) sum.push_back(0);
      sum[column++] += value;
      p = next;
    }
  }
  std::string out = "cpu ";
  for (std::uint64_t value : sum) out += StrCat(" ", value);
  out += "\n";
  for (const std::string& line : kept) out += line + "\n";
  for (const std::string& line : rest) out += line + "\n";
  return out;
}

ProcView ProcViewOf(std::string_view resolved_path) {
  if (resolved_path == "/proc/meminfo") return ProcView::kMeminfo;
  if (resolved_path == "/proc/cpuinfo") return ProcView::kCpuinfo;
  if (resolved_path == "/proc/stat") return ProcView::kStat;
  return ProcView::kNone;
}

}  // namespace vigil::sentry
