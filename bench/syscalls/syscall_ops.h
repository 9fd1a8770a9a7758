// The syscall microbenchmarks: one table row per operation, each timed the
// same way on the host and inside a container.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <string_view>

namespace vigil::bench {

// State an operation keeps between its setup and teardown.
struct OpContext {
  char dir[64] = {};   // a private directory under /tmp
  char file[96] = {};  // a 4 KiB file in it
  int fd = -1;         // that file, open read-write
  int ping[2] = {-1, -1};
  int pong[2] = {-1, -1};
  int echo_pid = -1;
  int sock = -1;         // network_ops.h: a socket kept between runs
  sockaddr_in target{};  // network_ops.h: where tcp_connect connects
  alignas(4096) char buffer[4096] = {};
};

// One benchmarked operation: Run performs it `iterations` times.
struct Op {
  std::string_view name;
  std::string_view what;  // one line for the report
  bool (*setup)(OpContext&);
  void (*run)(OpContext&, std::uint64_t iterations);
  void (*teardown)(OpContext&);
};

// Every operation, in report order.
const Op* Ops(std::size_t& count);

}  // namespace vigil::bench
