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
echo "ok"
