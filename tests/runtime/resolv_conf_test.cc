// The resolv.conf files of a sandbox whose resolver answers its names,
// made from the container's own (Docker's, a pod's, the image's).
#include "runtime/policy/resolv_conf.h"

#include <gtest/gtest.h>

namespace vigil::runtime {
namespace {

TEST(SandboxResolvConfTest, TheWorkloadAsksTheResolverWithItsSearchList) {
  const SandboxResolvConf made = MakeSandboxResolvConf(
      "# a pod's\n"
      "search default.svc.cluster.local svc.cluster.local\n"
      "nameserver 10.96.0.10\n"
      "  nameserver\t2001:db8::53  \n"
      "options ndots:5\n"
      "sortlist 10.0.0.0/8\n",
      "127.0.0.53");
  EXPECT_EQ(made.workload,
            "# Names are answered by vigil's resolver for this sandbox.\n"
            "nameserver 127.0.0.53\n"
            "search default.svc.cluster.local svc.cluster.local\n"
            "options ndots:5\n");
  EXPECT_EQ(made.upstream,
            "nameserver 10.96.0.10\n"
            "nameserver 2001:db8::53\n"
            "options ndots:5\n");
}

// An image whose resolv.conf names systemd-resolved's stub: the resolver
// would ask itself, so that nameserver is not an upstream.
TEST(SandboxResolvConfTest, TheResolversOwnAddressIsNoUpstream) {
  const SandboxResolvConf made = MakeSandboxResolvConf("nameserver 127.0.0.53\n", "127.0.0.53");
  EXPECT_EQ(made.upstream, "");
  EXPECT_EQ(MakeSandboxResolvConf("", "127.0.0.53").workload,
            "# Names are answered by vigil's resolver for this sandbox.\nnameserver 127.0.0.53\n");
}

}  // namespace
}  // namespace vigil::runtime
