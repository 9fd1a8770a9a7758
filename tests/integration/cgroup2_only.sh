#!/bin/sh
# vigil as a cgroup v2-only host runs it: in a private mount namespace whose
# only cgroup mount is the cgroup2 hierarchy at /sys/fs/cgroup, so that
# vigil discovers no v1 controller (tests/integration/harness/runtime_test.h,
# CgroupRuntimes). Needs root. usage: cgroup2_only.sh VIGIL [ARGS...]
exec unshare --mount --propagation private sh -c '
  umount -R /sys/fs/cgroup 2>/dev/null || umount -l /sys/fs/cgroup || exit 125
  mount -t cgroup2 cgroup2 /sys/fs/cgroup || exit 125
  exec "$@"' cgroup2_only "$@"
