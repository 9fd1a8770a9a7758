#!/usr/bin/env bash
# containerd runs containers with vigil: a private containerd (its own socket,
# root and state in a temporary directory, no CRI, no registry, no CNI) driven
# by ctr with --runc-binary set to the runtime under test, a busybox image
# imported from a tar make_image.py builds, and the cases a ctr user tries
# first: run, exit status, and a detached task through exec, kill and delete.
#
# usage: containerd.sh RUNTIME   (vigil's binary; /usr/sbin/runc works as well,
#                                 as the reference the cases are checked against)
# Prints "ok - ..." / "not ok - ..." per case and "N passed, M failed"; exits 77
# (skipped) when not root or containerd is not installed, non-zero on a failure.
set -uo pipefail

# shellcheck source=tests/clients/lib.sh
source "$(dirname "$0")/lib.sh"
take_runtime_arg "$@"
[[ $EUID -eq 0 ]] || skip "needs root (containerd)"
containerd=$(command -v containerd) || skip "containerd not installed (scripts/install-deps: containerd)"
ctr=$(command -v ctr) || skip "ctr not installed (it comes with containerd)"
command -v containerd-shim-runc-v2 >/dev/null || skip "containerd-shim-runc-v2 not installed"
busybox=$(command -v busybox) || skip "busybox not installed (busybox-static)"
command -v python3 >/dev/null || skip "python3 not installed"
here=$(cd "$(dirname "$0")" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vigil-containerd.XXXXXX") || exit 1
sock=$tmp/containerd.sock
# A namespace of its own: containerd puts a task in cgroup /NAMESPACE/ID.
ns=vigil-test-$$
image=localhost/vigil-busybox:test
containerd_pid=""

# Processes started with our socket as an argument: the shims containerd
# started for us (-address SOCK), and ctr.
# shellcheck disable=SC2317  # called from cleanup, a trap

# Everything the test started: its tasks and containers through containerd,
# then containerd, then by pid whatever is left (the processes in the tasks'
# cgroups, which are named after our namespace, and the shims), the shims'
# sockets, the cgroups, every mount under $tmp, and $tmp.
# shellcheck disable=SC2317  # a trap
cleanup() {
  set +e
  if [[ -n $containerd_pid ]] && kill -0 "$containerd_pid" 2>/dev/null; then
    local id
    for id in $(timeout 10 "$ctr" -a "$sock" -n "$ns" task ls -q 2>/dev/null); do
      timeout 10 "$ctr" -a "$sock" -n "$ns" task kill -a -s SIGKILL "$id" >/dev/null 2>&1
      timeout 10 "$ctr" -a "$sock" -n "$ns" task delete -f "$id" >/dev/null 2>&1
    done
    for id in $(timeout 10 "$ctr" -a "$sock" -n "$ns" container ls -q 2>/dev/null); do
      timeout 10 "$ctr" -a "$sock" -n "$ns" container delete "$id" >/dev/null 2>&1
    done
  fi
  containerd_teardown "$containerd_pid" "$sock" "$tmp" "$ns" "$ns"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

c() { timeout 60 "$ctr" -a "$sock" -n "$ns" "$@"; }
# metric TASK NAME: one value of `ctr task metrics` (cgroup v1 names).
metric() { c task metrics "$1" | awk -v name="$2" '$1 == name { print $2 }'; }

# The shim's log of every task (the runtime's --log, JSON lines), shown under
# a failed case; and a case's command must also succeed.
expect_success=1
failure_context() {
  local log
  for log in "$tmp"/state/io.containerd.runtime.v2.task/"$ns"/*/log.json; do
    [[ -s $log ]] && { echo "$log:"; tail -n 5 "$log"; }
  done
}
# task_status ID: RUNNING, STOPPED, ... (empty when there is no task).
task_status() {
  c task ls 2>/dev/null | awk -v id="$1" '$1 == id { print $3 }'
}
# remove_task ID: kills a task left running by a case, then removes it and
# its container.
remove_task() {
  c task kill -s SIGKILL "$1" >/dev/null 2>&1
  for _ in $(seq 50); do [[ $(task_status "$1") == STOPPED ]] && break; sleep 0.2; done
  c task delete "$1" >/dev/null 2>&1
  c container delete "$1" >/dev/null 2>&1
}
finish() {
  if ((failed)); then
    echo "# containerd's log (warnings and errors, last 40):"
    grep -v 'level=info' "$tmp/containerd.log" | tail -n 40 | sed 's/^/#   /'
  fi
  report
  exit
}

mkdir -p "$tmp/fifo" "$tmp/runc"
cat >"$tmp/config.toml" <<EOF
version = 2
root = "$tmp/root"
state = "$tmp/state"
disabled_plugins = [
  "io.containerd.grpc.v1.cri",
  "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.zfs",
]

[grpc]
  address = "$sock"

[ttrpc]
  address = "$sock.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "$tmp/opt"
EOF

echo "# runtime: $runtime; $("$containerd" --version)"
"$containerd" --config "$tmp/config.toml" >"$tmp/containerd.log" 2>&1 &
containerd_pid=$!
for _ in $(seq 150); do
  c version >/dev/null 2>&1 && break
  kill -0 "$containerd_pid" 2>/dev/null || break
  sleep 0.2
done
if ! c version >/dev/null 2>&1; then
  not_ok "containerd starts" "$(tail -n 30 "$tmp/containerd.log")"
  finish
fi
ok "containerd starts"

# overlayfs when it loaded (it test-mounts on $tmp), else native (copies).
snapshotter=native
if c plugins ls 2>/dev/null | awk '$2 == "overlayfs" && $NF == "ok"' | grep -q .; then
  snapshotter=overlayfs
fi
export CONTAINERD_SNAPSHOTTER=$snapshotter
echo "# snapshotter: $snapshotter"

# The image: busybox-static and a link per applet, one tar, no registry.
if ! out=$(python3 "$here/make_image.py" "$image" "$tmp/image.tar" "$busybox" 2>&1); then
  not_ok "make_image.py" "$out"
  finish
fi
if out=$(c image import "$tmp/image.tar" 2>&1) &&
  c image ls -q 2>/dev/null | grep -qxF "$image"; then
  ok "ctr image import (unpacked with $snapshotter)"
else
  not_ok "ctr image import" "$out"
  finish
fi

run=(run --runc-binary "$runtime" --runc-root "$tmp/runc" --fifo-dir "$tmp/fifo")
expect "ctr run --rm echo hi" hi c "${run[@]}" --rm "$image" hello echo hi
expect_rc "exit code 3 propagated" 3 c "${run[@]}" --rm "$image" exit3 sh -c 'exit 3'
expect "--rm left no container" "" c container ls -q

# A detached task through exec, kill and delete.
if c "${run[@]}" -d "$image" sleeper sleep 100 >/dev/null 2>"$tmp/stderr"; then
  ok "ctr run -d sleep 100"
  expect "task ls: RUNNING" RUNNING task_status sleeper
  # The shim loads the task's cgroup from the runtime's pid (its
  # /proc/PID/cgroup): the metrics are the container's own.
  expect "ctr task metrics: the container's pids cgroup" 1 metric sleeper pids.current
  expect "ctr task exec echo from-exec" from-exec \
    c task exec --fifo-dir "$tmp/fifo" --exec-id e1 sleeper echo from-exec
  expect_rc "ctr task exec exit code" 5 \
    c task exec --fifo-dir "$tmp/fifo" --exec-id e2 sleeper sh -c 'exit 5'
  if c task kill -s SIGKILL sleeper >/dev/null 2>"$tmp/stderr"; then
    for _ in $(seq 50); do
      [[ $(task_status sleeper) == STOPPED ]] && break
      sleep 0.2
    done
    expect "ctr task kill -s SIGKILL: STOPPED" STOPPED task_status sleeper
  else
    not_ok "ctr task kill -s SIGKILL" "$(cat "$tmp/stderr")
$(failure_context)"
  fi
  if c task delete sleeper >/dev/null 2>"$tmp/stderr" && [[ -z $(task_status sleeper) ]]; then
    ok "ctr task delete"
  else
    not_ok "ctr task delete" "$(cat "$tmp/stderr")
$(failure_context)"
  fi
  if c container delete sleeper >/dev/null 2>"$tmp/stderr" && [[ -z $(c container ls -q) ]]; then
    ok "ctr container delete"
  else
    not_ok "ctr container delete" "$(cat "$tmp/stderr")"
  fi
else
  not_ok "ctr run -d sleep 100" "$(cat "$tmp/stderr")
$(failure_context)"
fi

# An agent platform's sandboxes through ctr's --annotation (the route a pod's
# annotations take): a lifetime ending with KILL after its grace, a policy
# that extends agent inline, and the audit of both after --rm.
if "$runtime" policy list >/dev/null 2>&1; then
  state_root=$tmp/runc/$ns
  timed=(--annotation dev.vigil.timeout=2s --annotation dev.vigil.timeout-grace=1s)
  expect_rc "dev.vigil.timeout=2s: sleep (pid 1 ignores TERM) killed after the 1 s grace" 137 \
    c "${run[@]}" --rm "${timed[@]}" "$image" timed sleep 100
  expect "vigil audit after ctr run --rm: TERM, then KILL" "SIGTERM SIGKILL" sh -c \
    '"$0" --root "$1" audit timed | grep -o "event timeout(.*signal=\"SIG[A-Z]*\"" |
       grep -o "SIG[A-Z]*" | tr "\n" " " | sed "s/ $//"' "$runtime" "$state_root"
  policy='{"extends": "agent", "files": {"rules": [{"path": "/out/**", "access": "write"}]}}'
  expect "dev.vigil.policy extending agent: /out and /tmp writable, the root not" \
    "refused out tmp" c "${run[@]}" --rm --annotation "dev.vigil.policy=$policy" "$image" \
    extended sh -c 'touch /probe 2>/dev/null && r=written || r=refused
      echo out >/out/f && echo tmp >/tmp/f && echo "$r $(cat /out/f) $(cat /tmp/f)"'
  # No limits in the config (ctr sets none): agent's defaults apply, as the
  # host sees the container's cgroup.
  if c "${run[@]}" -d --annotation dev.vigil.policy=agent "$image" limits sleep 100 \
    >/dev/null 2>"$tmp/stderr"; then
    expect "agent's default limits where the config sets none: 1024 pids, 2 GiB" \
      "1024 2147483648" sh -c 'pid=$1
      v1() { awk -F: -v c="$1" "\$2 ~ \"(^|,)\" c \"(,|\$)\" { print \$3 }" /proc/$pid/cgroup; }
      v2=$(awk -F: "\$1 == \"0\" { print \$3 }" /proc/$pid/cgroup)
      echo $(cat "/sys/fs/cgroup/pids$(v1 pids)/pids.max" 2>/dev/null ||
               cat "/sys/fs/cgroup$v2/pids.max") \
        $(cat "/sys/fs/cgroup/memory$(v1 memory)/memory.limit_in_bytes" 2>/dev/null ||
          cat "/sys/fs/cgroup$v2/memory.max")' \
      sh "$(c task ls | awk '$1 == "limits" { print $2 }')"
    remove_task limits
  else
    not_ok "ctr run -d under agent" "$(cat "$tmp/stderr")"
  fi
  expect "vigil audit after ctr run --rm keeps the refusal" 1 sh -c \
    '"$0" --root "$1" audit --denied extended | grep -c "openat(path=\"/probe\""' \
    "$runtime" "$state_root"
  if c "${run[@]}" -d --annotation "dev.vigil.policy=$policy" "$image" extended-d sleep 100 \
    >/dev/null 2>"$tmp/stderr"; then
    expect "vigil state: the policy in force, by name" '"agent-extended"' sh -c \
      '"$0" --root "$1" state extended-d | grep -o "\"name\": *\"[a-z-]*\"" | sed "s/.*: *//"' \
      "$runtime" "$state_root"
    remove_task extended-d
  else
    not_ok "ctr run -d with the extended policy" "$(cat "$tmp/stderr")"
  fi
  # An idle sandbox gives its memory back on a plain `ctr task pause` when
  # its annotation asks (docs/agents.md, "Idle sandboxes"): 32 MiB of page
  # cache it wrote are dropped, and it goes on where it was after resume.
  if c "${run[@]}" -d --annotation dev.vigil.pause-release-memory=true "$image" idle sh -c \
    'dd if=/dev/zero of=/cache bs=1M count=32 2>/dev/null; sync; echo ready >/ready; sleep 100' \
    >/dev/null 2>"$tmp/stderr"; then
    for _ in $(seq 50); do c task exec --exec-id r idle cat /ready >/dev/null 2>&1 && break; sleep 0.2; done
    if c task pause idle >/dev/null 2>"$tmp/stderr"; then
      expect "ctr task pause with dev.vigil.pause-release-memory: the page cache released" \
        released sh -c '"$0" --root "$1" state idle | "$2" 16' "$runtime" "$state_root" \
        "$here/released.py"
    else
      not_ok "ctr task pause of a sandbox that releases its memory" "$(cat "$tmp/stderr")"
    fi
    c task resume idle >/dev/null 2>&1
    expect "ctr task resume after the release: the sandbox runs on" "RUNNING ready" sh -c \
      'echo "$1 $2"' sh "$(task_status idle)" "$(c task exec --exec-id r2 idle cat /ready 2>&1)"
    remove_task idle
  else
    not_ok "ctr run -d with dev.vigil.pause-release-memory" "$(cat "$tmp/stderr")"
  fi
fi

finish
