// The supervisor's control requests: one codec for both ends, and what the
// server refuses before acting on it.
#include "runtime/container/supervisor_control.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include "base/strings.h"
#include "base/unix_socket.h"

namespace vigil::runtime {
namespace {

TEST(SupervisorControlTest, EveryRequestComesBackAsItWasSent) {
  const ControlRequest requests[] = {
      {.verb = ControlVerb::kStart},
      {.verb = ControlVerb::kListener},
      {.verb = ControlVerb::kTracee, .channel_number = "7"},
      {.verb = ControlVerb::kTrim},
      {.verb = ControlVerb::kPaused},
      {.verb = ControlVerb::kResumed},
  };
  for (const ControlRequest& request : requests) {
    std::string wire = EncodeControlRequest(request);
    Result<ControlRequest> decoded = DecodeControlRequest(wire);
    ASSERT_TRUE(decoded) << wire << ": " << decoded.error().message;
    EXPECT_EQ(decoded->verb, request.verb) << wire;
    EXPECT_EQ(decoded->channel_number, request.channel_number) << wire;
  }
  EXPECT_EQ(EncodeControlRequest({.verb = ControlVerb::kTracee, .channel_number = "12"}),
            "tracee 12");
}

TEST(SupervisorControlTest, AMalformedRequestIsRefusedByName) {
  for (std::string_view wire : {"", "stop", "start now", "tracee", "tracee ", "Start"}) {
    Result<ControlRequest> decoded = DecodeControlRequest(wire);
    ASSERT_FALSE(decoded) << Quote(wire);
    EXPECT_EQ(decoded.error().message, "unknown request " + Quote(wire));
  }
}

TEST(SupervisorControlTest, ARequestThatNeedsADescriptorIsRefusedWithoutOne) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
  UniqueFd client(pair[0]), server(pair[1]);
  ASSERT_TRUE(SendWithFd(client.Get(), "listener", -1));
  UniqueFd attached;
  Result<ControlRequest> request = ReadControlRequest(server.Get(), &attached);
  ASSERT_FALSE(request);
  EXPECT_EQ(request.error().message, "request \"listener\" came without its descriptor");
}

}  // namespace
}  // namespace vigil::runtime
