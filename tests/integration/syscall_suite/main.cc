// The syscall suite's entry point: runs every case in order and prints one
// `NAME: result` line each, then "cases: N". The exit status is 0 whenever
// the program got to the end: the comparison, not the program, judges.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/integration/syscall_suite/suite.h"

int main() {
  using namespace vigil::syscall_suite;
  // Fixed, so every mode a case creates is the same under each runtime.
  ::umask(022);
  std::vector<Case> cases;
  for (auto family : {OpenCases, Openat2Cases, StatCases, AccessCases, NameCases, AttributeCases,
                      XattrCases, SystemCases, NetworkCases}) {
    for (Case& c : family()) cases.push_back(std::move(c));
  }
  for (const Case& c : cases) {
    std::string result = c.run();
    std::printf("%s: %s\n", c.name.c_str(), result.c_str());
    std::fflush(stdout);
  }
  std::printf("cases: %zu\n", cases.size());
  return 0;
}
