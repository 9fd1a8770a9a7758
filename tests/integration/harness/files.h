// Files and processes as the integration tests look at them, and the time
// limits every wait in the harness keeps to.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

namespace vigil::integration {

// How long any one runtime command may take before the test calls it hung.
inline constexpr std::chrono::seconds kCommandTimeout{20};
// How long a container may take to reach a state the test is waiting for.
inline constexpr std::chrono::seconds kSettleTimeout{10};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void WriteWholeFile(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// The value of `Key:` in a /proc/PID/status text.
inline std::string StatusField(const std::string& status, const std::string& key) {
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(key + ":")) {
      std::string value = line.substr(key.size() + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return "(no " + key + " line)";
}

// The process's state letter from /proc/PID/stat ('R', 'S', 'Z', ...), or
// nullopt when there is no such process.
inline std::optional<char> ProcessState(pid_t pid) {
  std::string stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return std::nullopt;
  return stat[paren + 2];
}

// The parent pid of `pid` from /proc, or 0.
inline pid_t ParentOf(pid_t pid) {
  std::string stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  char state;
  pid_t ppid = 0;
  fields >> state >> ppid;
  return ppid;
}

// True while `pid` exists and has not exited: a zombie waiting for its
// parent to reap it has ended, so it does not count.
inline bool ProcessRunning(pid_t pid) {
  if (pid <= 0) return false;
  std::optional<char> state = ProcessState(pid);
  return state && *state != 'Z' && *state != 'X';
}

// Polls `done` until it holds or `limit` passes; returns its last answer.
inline bool Eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds limit = kSettleTimeout) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace vigil::integration
