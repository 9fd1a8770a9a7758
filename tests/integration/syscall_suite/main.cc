// The syscall suite's entry point: runs every case in order and prints one
// `NAME: result` line each, then "cases: N". The exit status is 0 whenever
// the program got to the end: the comparison, not the program, judges.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/integration/syscall_suite/suite.h"

// The cases change what they name (the read-only root's files among them):
// only inside the test's container, where the program is kOnlyInTheContainer,
// is that harmless.
bool InTheTestsContainer() {
  using vigil::syscall_suite::kOnlyInTheContainer;
  char self[64] = {};
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  return n > 0 && std::string(self, static_cast<std::size_t>(n)) == kOnlyInTheContainer;
}

int main() {
  using namespace vigil::syscall_suite;
  if (!InTheTestsContainer()) {
    std::fprintf(stderr,
                 "vigil_syscall_suite: runs only as %s in the integration test's container "
                 "(its cases would change this system's files)\n",
                 kOnlyInTheContainer);
    return 2;
  }
  // Fixed, so every mode a case creates is the same under each runtime.
  ::umask(022);
  std::vector<Case> cases;
  // FidelityCases first: its first cases look at the process as it started.
  for (auto family :
       {FidelityCases, OpenCases, Openat2Cases, StatCases, AccessCases, NameCases, AttributeCases,
        XattrCases, SystemCases, NetworkCases, LimitCases, MessageCases, DeputyCases}) {
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
