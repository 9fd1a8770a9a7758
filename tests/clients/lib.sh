# Shared by the client tests (sourced, not run): the runtime argument, TAP-like
# "ok - ..." / "not ok - ..." reporting, and the busybox rootfs.
#
# The sourcing script sets $tmp before calling expect/expect_rc, and may
# define failure_context (more lines to show under a failed case) and
# expect_success=1 (expect also demands exit status 0).

skip() {
  echo "skip: $*"
  exit 77
}

# take_runtime_arg "$@": sets $runtime to the absolute path of the binary
# under test, the script's only argument.
take_runtime_arg() {
  if [[ $# -ne 1 ]]; then
    echo "usage: $0 RUNTIME" >&2
    exit 2
  fi
  runtime=$(readlink -f "$1") || exit 2
  [[ -x $runtime ]] || { echo "$0: $1 is not an executable" >&2; exit 2; }
}

passed=0
failed=0
ok() {
  echo "ok - $1"
  passed=$((passed + 1))
}
not_ok() {
  echo "not ok - $1"
  [[ -n ${2:-} ]] && printf '%s\n' "$2" | sed 's/^/#   /'
  failed=$((failed + 1))
}
# skipped NAME REASON: a case that cannot be judged on this host (a fault
# the reference runtime shares), named with the reason; not a failure.
skipped_cases=0
skipped() {
  echo "ok - $1 # SKIP $2"
  skipped_cases=$((skipped_cases + 1))
}
context() {
  if declare -F failure_context >/dev/null; then failure_context; fi
}
# expect NAME WANT COMMAND...: COMMAND's standard output must be WANT.
expect() {
  local name=$1 want=$2
  shift 2
  local out rc
  out=$("$@" 2>"$tmp/stderr")
  rc=$?
  if [[ $out == "$want" ]] && { [[ ${expect_success:-0} == 0 ]] || ((rc == 0)); }; then
    ok "$name"
  else
    not_ok "$name" "exit $rc, wanted \"$want\", got \"$out\"; stderr: $(cat "$tmp/stderr")
$(context)"
  fi
}
# expect_rc NAME WANT COMMAND...: COMMAND must exit with status WANT.
expect_rc() {
  local name=$1 want=$2
  shift 2
  "$@" >/dev/null 2>"$tmp/stderr"
  local rc=$?
  if ((rc == want)); then ok "$name"; else
    not_ok "$name" "exit $rc, wanted $want; stderr: $(cat "$tmp/stderr")
$(context)"
  fi
}
# The closing line ctest and CI read; the status says whether all passed.
report() {
  echo "$passed passed, $failed failed${skipped_cases:+, $skipped_cases skipped}"
  ((failed == 0))
}

# busybox_rootfs DIR BUSYBOX: busybox-static and a link per applet in DIR/bin.
busybox_rootfs() {
  mkdir -p "$1/bin"
  cp "$2" "$1/bin/busybox"
  local applet
  for applet in $("$2" --list); do
    [[ $applet == busybox ]] || ln -sf busybox "$1/bin/$applet"
  done
}

# A private containerd's processes: every one started with its socket on the
# command line (containerd itself, its shims).
started_with_socket() {
  local sock=$1 proc
  for proc in /proc/[0-9]*; do
    tr '\0' '\n' 2>/dev/null <"$proc/cmdline" | grep -qxF -- "$sock" && echo "${proc#/proc/}"
  done
}

# Stops a private containerd (pid $1, socket $2, state under $3/state,
# namespace $4, containers in cgroup parent $5) and removes everything it
# left: shims, processes in its cgroups, shim sockets, cgroups, mounts under
# $3, and $3 itself.
containerd_teardown() {
  local pid=$1 sock=$2 tmp=$3 ns=$4 cgroup_parent=$5
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  local cgroups=(/sys/fs/cgroup/"$cgroup_parent" /sys/fs/cgroup/*/"$cgroup_parent") dir left
  for dir in "${cgroups[@]}"; do
    find "$dir" -name cgroup.procs -exec cat {} + 2>/dev/null |
      while read -r left; do kill -KILL "$left" 2>/dev/null; done
  done
  for left in $(started_with_socket "$sock"); do kill -KILL "$left" 2>/dev/null; done
  local address
  for address in "$tmp"/state/io.containerd.runtime.v2.task/"$ns"/*/address; do
    [[ -f $address ]] && rm -f "$(sed 's|^unix://||' "$address")"
  done
  for _ in $(seq 20); do
    local remaining=0
    for dir in "${cgroups[@]}"; do
      [[ -d $dir ]] || continue
      find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
      [[ -d $dir ]] && remaining=1
    done
    ((remaining)) || break
    sleep 0.1
  done
  local target
  awk -v dir="$tmp/" 'index($5, dir) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
    while read -r target; do umount -l "$target" 2>/dev/null; done
  rm -rf "$tmp"
}
