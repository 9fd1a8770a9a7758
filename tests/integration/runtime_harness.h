// A harness for integration tests that drive an OCI runtime binary — vigil or
// runc, given by path — the way containerd and conmon do: one fresh bundle
// (a busybox rootfs and a config.json) and one fresh --root per test, every
// command run with fork/exec (no shell), captured, and killed if it hangs.
//
// Header-only: vigil_test_dir builds one binary per *_test.cc and links only
// the libraries it is given, so shared helpers live in harness/ as inline
// code, one header per concern; this one includes them all.
#pragma once

#include "tests/integration/harness/bundle.h"
#include "tests/integration/harness/commands.h"
#include "tests/integration/harness/files.h"
#include "tests/integration/harness/runtime_test.h"
