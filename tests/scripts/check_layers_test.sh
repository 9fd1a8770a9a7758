#!/usr/bin/env bash
# scripts/check-layers against made-up trees: it passes one whose includes
# point down, and fails one with an include that points up, naming the file.
set -euo pipefail
check=$1
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/{base,sentry,runtime,cli}
echo '#include "base/a.h"' >"$tree/sentry/b.h"
echo '#include "sentry/b.h"' >"$tree/runtime/c.cc"
echo '#include "runtime/c.h"' >"$tree/cli/d.cc"
"$check" "$tree" >/dev/null || { echo "FAIL: a tree whose includes point down was refused"; exit 1; }

echo '  #include "runtime/c.h"' >"$tree/sentry/up.cc"
if out=$("$check" "$tree" 2>&1); then
  echo "FAIL: sentry/up.cc includes runtime/, and the check passed"
  exit 1
fi
grep -q '^sentry/up.cc:1: .*sentry/ includes a layer above it' <<<"$out" ||
  { echo "FAIL: the error does not name sentry/up.cc:1: $out"; exit 1; }
rm "$tree/sentry/up.cc"

# Inside sentry/ and runtime/: a folder below includes one above.
mkdir -p "$tree"/sentry/{core,handlers} "$tree"/runtime/{cgroup,container}
echo '#include "sentry/core/a.h"' >"$tree/sentry/handlers/h.cc"
echo '#include "runtime/cgroup/c.h"' >"$tree/runtime/container/k.cc"
"$check" "$tree" >/dev/null || { echo "FAIL: sub-folders whose includes point down were refused"; exit 1; }
echo '#include "sentry/handlers/h.h"' >"$tree/sentry/core/up.cc"
echo '#include "runtime/container/k.h"' >"$tree/runtime/cgroup/up.cc"
if out=$("$check" "$tree" 2>&1); then
  echo "FAIL: sentry/core and runtime/cgroup include folders above them, and the check passed"
  exit 1
fi
grep -q '^sentry/core/up.cc:1:.*sentry/core/ includes a layer above it' <<<"$out" ||
  { echo "FAIL: the error does not name sentry/core/up.cc:1: $out"; exit 1; }
grep -q '^runtime/cgroup/up.cc:1:.*runtime/cgroup/ includes a layer above it' <<<"$out" ||
  { echo "FAIL: the error does not name runtime/cgroup/up.cc:1: $out"; exit 1; }
echo "ok"
