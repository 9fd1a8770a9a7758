#!/usr/bin/env bash
# Docker runs containers with vigil: a private dockerd (its own managed
# containerd, all state in a temporary directory, no bridge, no iptables, no
# registry) with the runtime under test registered as "vigil", a busybox image
# imported from a local tarball, and the cases a Docker user tries first.
#
# usage: docker.sh RUNTIME   (vigil's binary; /usr/sbin/runc works as well, as
#                             the reference the cases are checked against)
# Prints "ok - ..." / "not ok - ..." per case and "N passed, M failed"; exits 77
# (skipped) when not root or Docker is not installed, non-zero on a failure.
set -uo pipefail

# shellcheck source=tests/clients/lib.sh
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
take_runtime_arg "$@"
[[ $EUID -eq 0 ]] || skip "needs root (dockerd)"
dockerd=$(command -v dockerd) || skip "dockerd not installed (scripts/install-deps: docker.io)"
command -v containerd >/dev/null || skip "containerd not installed (docker.io depends on it)"
# docker.io's own client first: another one earlier on PATH may be newer than
# the daemon.
if [[ -x /usr/bin/docker ]]; then docker_cli=/usr/bin/docker; else
  docker_cli=$(command -v docker) || skip "docker client not installed"
fi
busybox=$(command -v busybox) || skip "busybox not installed (busybox-static)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vigil-docker.XXXXXX") || exit 1
sock=$tmp/docker.sock
dockerd_pid=""
image=vigil-test/busybox:latest
# A bridge network of the test's own, for a published port (-p), which
# docker-proxy serves on the host (no iptables here); removed at the end.
test_network=vigil-test-net-$$
test_bridge=vigiltest$(($$ % 100000))
# dockerd's parent cgroup in each hierarchy: removed at the end (while empty)
# where this test made it.
hierarchies=$(findmnt -rn -t cgroup,cgroup2 -o TARGET)
new_cgroups=()
for h in $hierarchies; do [[ -e $h/docker ]] || new_cgroups+=("$h/docker"); done

# Everything the test started, by pid, then every mount under $tmp.
cleanup() {
  set +e
  if [[ -n $dockerd_pid ]] && kill -0 "$dockerd_pid" 2>/dev/null; then
    local ids
    ids=$(timeout 30 "$docker_cli" -H "unix://$sock" ps -aq 2>/dev/null)
    # shellcheck disable=SC2086
    [[ -n $ids ]] && timeout 60 "$docker_cli" -H "unix://$sock" rm -f $ids >/dev/null 2>&1
    timeout 30 "$docker_cli" -H "unix://$sock" network rm "$test_network" >/dev/null 2>&1
    local containerd_pid
    containerd_pid=$(cat "$tmp/exec/containerd/containerd.pid" 2>/dev/null)
    kill -TERM "$dockerd_pid"
    for _ in $(seq 100); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$dockerd_pid" 2>/dev/null
    wait "$dockerd_pid" 2>/dev/null
    if [[ -n $containerd_pid ]]; then
      for _ in $(seq 50); do kill -0 "$containerd_pid" 2>/dev/null || break; sleep 0.2; done
      kill -KILL "$containerd_pid" 2>/dev/null
    fi
  fi
  # Containers that were not removed (the runtime's state under the exec
  # root), then their shims.
  local state pidfile
  for state in "$tmp"/exec/runtime-*/moby/*/; do
    [[ -d $state ]] || continue
    timeout 30 "$runtime" --root "$(dirname "$state")" delete --force "$(basename "$state")" \
      >/dev/null 2>&1
  done
  for pidfile in "$tmp"/exec/containerd/daemon/io.containerd.runtime.v2.task/*/*/shim.pid; do
    [[ -f $pidfile ]] && kill -KILL "$(cat "$pidfile")" 2>/dev/null
  done
  ip link del "$test_bridge" >/dev/null 2>&1
  local target
  awk -v dir="$tmp/" 'index($5, dir) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
    while read -r target; do umount -l "$target" 2>/dev/null; done
  rm -rf "$tmp"
  local dir
  for dir in "${new_cgroups[@]}"; do rmdir "$dir" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

dk() { timeout 120 "$docker_cli" -H "unix://$sock" "$@"; }

finish() {
  if ((failed)); then
    echo "# dockerd's log, its last errors and warnings:"
    grep -E 'level=(error|warning|fatal)' "$tmp/dockerd.log" | tail -n 20 | sed 's/^/#   /'
  fi
  report
  exit
}

# The runtime under test is vigil (runc has no `policy` verb): its own
# cases run too.
is_vigil=0
"$runtime" policy list >/dev/null 2>&1 && is_vigil=1
# Handlers an operator of an agent platform registers (docs/agents.md): the
# agent profile, and a lifetime for every container (Docker 20.10 passes no
# annotations, so the operator's flags choose; Docker 24's --annotation
# dev.vigil.* reaches vigil as the CRI's do).
vigil_only_runtimes() {
  ((is_vigil)) || return 0
  printf ',\n    "vigil-agent": {"path": "%s", "runtimeArgs": ["--policy", "agent"]}' "$runtime"
  printf ',\n    "vigil-timed": {"path": "%s", "runtimeArgs": ["--timeout", "3s"]}' "$runtime"
  printf ',\n    "vigil-idle": {"path": "%s", "runtimeArgs": ["--pause-release-memory"]}' "$runtime"
}
# overlay2 unless $tmp is on a filesystem overlayfs cannot stack on.
storage=overlay2
case $(stat -f -c %T "$tmp") in overlayfs | tmpfs | aufs) storage=vfs ;; esac
cat >"$tmp/daemon.json" <<EOF
{
  "bridge": "none",
  "iptables": false,
  "ip6tables": false,
  "ip-forward": false,
  "ip-masq": false,
  "userland-proxy": true,
  "exec-opts": ["native.cgroupdriver=cgroupfs"],
  "storage-driver": "$storage",
  "deprecated-key-path": "$tmp/key.json",
  "runtimes": {
    "vigil": {"path": "$runtime"}$(vigil_only_runtimes)
  }
}
EOF

echo "# runtime: $runtime; dockerd: $("$dockerd" --version); storage: $storage"
"$dockerd" --config-file "$tmp/daemon.json" --data-root "$tmp/data" --exec-root "$tmp/exec" \
  --pidfile "$tmp/dockerd.pid" -H "unix://$sock" >"$tmp/dockerd.log" 2>&1 &
dockerd_pid=$!
for _ in $(seq 150); do
  dk version >/dev/null 2>&1 && break
  kill -0 "$dockerd_pid" 2>/dev/null || break
  sleep 0.2
done
if ! dk version >/dev/null 2>&1; then
  not_ok "dockerd starts" "$(tail -n 30 "$tmp/dockerd.log")"
  finish
fi
ok "dockerd starts"

# The image: busybox-static and a link per applet, imported, no registry.
busybox_rootfs "$tmp/rootfs" "$busybox"
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" .
if ! out=$(dk import --change 'CMD ["sh"]' "$tmp/rootfs.tar" "$image" 2>&1); then
  not_ok "docker import busybox" "$out"
  finish
fi
ok "docker import busybox"

run=(run --rm --runtime=vigil --network none)
expect "docker run echo hi" hi dk "${run[@]}" "$image" echo hi

expect_rc "exit code 3 propagated" 3 dk "${run[@]}" "$image" sh -c 'exit 3'

# A detached container through its lifecycle.
if cid=$(dk run -d --runtime=vigil --network none "$image" sleep 100 2>"$tmp/stderr"); then
  ok "docker run -d"
  expect "docker inspect: running" true dk inspect -f '{{.State.Running}}' "$cid"
  expect "docker exec" from-exec dk exec "$cid" echo from-exec
  expect "docker exec -u 1000" 1000 dk exec -u 1000 "$cid" id -u
  expect_rc "docker exec exit code" 5 dk exec "$cid" sh -c 'exit 5'
  # What clients read from /proc/<the runtime's pid>: the container's own
  # namespaces and cgroups (docs/processes.md).
  expect "docker top: the container's process" "sleep 100" sh -c \
    '"$0" -H "unix://$1" top "$2" -o pid,args | awk "NR > 1 { \$1 = \"\"; sub(/^ /, \"\"); print }"' \
    "$docker_cli" "$sock" "$cid"
  expect "docker stats --no-stream: the container's pids cgroup" 1 \
    dk stats --no-stream --format '{{.PIDs}}' "$cid"
  expect "docker stats --no-stream: memory in use" yes sh -c \
    'case $("$0" -H "unix://$1" stats --no-stream --format "{{.MemUsage}}" "$2") in
       0B*) echo no ;; *B*) echo yes ;; *) echo no ;; esac' "$docker_cli" "$sock" "$cid"
  pid=$(dk inspect -f '{{.State.Pid}}' "$cid")
  inside=$(dk exec "$cid" hostname)
  [[ $inside != "$(hostname)" ]] || inside="(the host's name: $inside)"
  expect "nsenter -t State.Pid -a: the container's namespaces" "$inside" \
    nsenter -t "$pid" -a hostname
  if dk pause "$cid" >/dev/null 2>"$tmp/stderr"; then
    expect "docker pause: Paused true" true dk inspect -f '{{.State.Paused}}' "$cid"
  else
    not_ok "docker pause" "$(cat "$tmp/stderr")"
  fi
  if dk unpause "$cid" >/dev/null 2>"$tmp/stderr"; then
    expect "docker unpause: Paused false" false dk inspect -f '{{.State.Paused}}' "$cid"
    expect "docker exec after unpause" again dk exec "$cid" echo again
  else
    not_ok "docker unpause" "$(cat "$tmp/stderr")"
  fi
  if dk stop -t 1 "$cid" >/dev/null 2>"$tmp/stderr"; then
    # sleep, as pid 1, ignores SIGTERM: stop ends it with SIGKILL (137).
    expect "docker stop -t 1: exited" "false 137" \
      dk inspect -f '{{.State.Running}} {{.State.ExitCode}}' "$cid"
  else
    not_ok "docker stop -t 1" "$(cat "$tmp/stderr")"
  fi
  if dk rm "$cid" >/dev/null 2>"$tmp/stderr" && ! dk inspect "$cid" >/dev/null 2>&1; then
    ok "docker rm"
  else
    not_ok "docker rm" "$(cat "$tmp/stderr")"
  fi
else
  not_ok "docker run -d" "$(cat "$tmp/stderr")"
fi

# docker kill: the signal reaches the container's process through the
# supervisor, and the exit status says which one.
if cid=$(dk run -d --runtime=vigil --network none "$image" sleep 100 2>"$tmp/stderr"); then
  if dk kill -s KILL "$cid" >/dev/null 2>"$tmp/stderr"; then
    expect "docker kill -s KILL: exited 137" "false 137" sh -c \
      'for i in $(seq 50); do out=$("$@"); [ "${out%% *}" = false ] && break; sleep 0.1; done; echo "$out"' \
      sh "$docker_cli" -H "unix://$sock" inspect -f '{{.State.Running}} {{.State.ExitCode}}' "$cid"
  else
    not_ok "docker kill -s KILL" "$(cat "$tmp/stderr")"
  fi
  dk rm -f "$cid" >/dev/null 2>&1
else
  not_ok "docker run -d (for kill)" "$(cat "$tmp/stderr")"
fi

# Out of memory: the kernel's OOM killer in the container's memory cgroup,
# seen by the shim through the cgroup of the runtime's pid.
if cid=$(dk run -d --runtime=vigil --network none --memory 16m --memory-swap 16m "$image" \
  sh -c 'a=x; while :; do a=$a$a; done' 2>"$tmp/stderr"); then
  expect "a memory-limit OOM: OOMKilled true, exited 137" "true 137" sh -c \
    'for i in $(seq 100); do out=$("$@"); [ "${out%% *}" = true ] && break; sleep 0.1; done; echo "$out"' \
    sh "$docker_cli" -H "unix://$sock" inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' "$cid"
  dk rm -f "$cid" >/dev/null 2>&1
  if ((is_vigil)); then
    expect "vigil audit after docker rm: the OOM kill" yes sh -c \
      '"$0" --root "$1" audit "$2" | grep -q "event oom-kill(processes=" && echo yes' \
      "$runtime" "$tmp/exec/runtime-runc/moby" "$cid"
  fi
else
  not_ok "docker run -d (for OOM)" "$(cat "$tmp/stderr")"
fi

# Joining another container's namespaces: dockerd names them by that
# container's pid (the runtime's --pid-file) as /proc/PID/ns/*. Both sides are
# read from inside, and the member must not be in the host's.
ns='for n in ipc net pid; do readlink /proc/self/ns/$n; done'
name="docker run --ipc/--network/--pid container:X joins X's namespaces"
if base=$(dk run -d --runtime=vigil --network none --ipc shareable "$image" sleep 100 \
  2>"$tmp/stderr"); then
  base_ns=$(dk exec "$base" sh -c "$ns" 2>>"$tmp/stderr")
  member_ns=$(dk run --rm --runtime=vigil --ipc "container:$base" --network "container:$base" \
    --pid "container:$base" "$image" sh -c "$ns" 2>>"$tmp/stderr")
  host_ns=$(for n in ipc net pid; do readlink "/proc/self/ns/$n"; done)
  if [[ -n $base_ns && $member_ns == "$base_ns" && $member_ns != "$host_ns" ]]; then
    ok "$name"
  else
    not_ok "$name" "X: ${base_ns//$'\n'/ }; member: ${member_ns//$'\n'/ }; host: ${host_ns//$'\n'/ }; \
stderr: $(cat "$tmp/stderr")"
  fi
  dk rm -f "$base" >/dev/null 2>&1
else
  not_ok "$name" "$(cat "$tmp/stderr")"
fi

# A terminal: the runtime hands the pty's master to the shim (console socket).
expect "docker run -t: a terminal" /dev/pts/0 sh -c \
  'timeout 120 "$0" -H "unix://$1" run --rm -t --runtime=vigil --network none "$2" tty | tr -d "\r"' \
  "$docker_cli" "$sock" "$image"
# -it: what is typed reaches the container through its terminal and the
# answer comes back (script(1) gives the docker client a terminal; the pty
# echoes the input, so the answer is marked).
expect "docker run -it: stdin through the pty" got-typed sh -c \
  '{ sleep 3; echo typed; sleep 3; } | timeout 120 script -qec "$0 -H unix://$1 run --rm -it --runtime=vigil --network none $2 sh -c \"read line; echo got-\\\$line\"" /dev/null | tr -d "\r" | grep -x got-typed' \
  "$docker_cli" "$sock" "$image"
expect "docker run -e -w" "bar /tmp" dk "${run[@]}" -e FOO=bar -w /tmp "$image" sh -c 'echo $FOO $(pwd)'

# Resources and security options, read back from inside.
expect "--memory 64m" 67108864 dk "${run[@]}" --memory 64m "$image" sh -c \
  'cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max'
expect "--cpus 0.5" "50000 100000" dk "${run[@]}" --cpus 0.5 "$image" sh -c \
  'echo $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us 2>/dev/null || cat /sys/fs/cgroup/cpu.max)'
expect "--pids-limit 10" 10 dk "${run[@]}" --pids-limit 10 "$image" sh -c \
  'cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max'
expect "--read-only: touch / fails" read-only dk "${run[@]}" --read-only "$image" sh -c \
  'if touch /probe 2>/dev/null; then echo writable; else echo read-only; fi'
# Device rules: --device with permissions "r" gives the node but not write
# access to it; --device-cgroup-rule adds what the rule says. The node is
# only opened for writing, never written.
open_kmsg='( exec 3>/dev/kmsg ) 2>/dev/null && echo opened || echo refused'
expect "--device /dev/kmsg:r: opening it for writing refused" refused \
  dk "${run[@]}" --device /dev/kmsg:/dev/kmsg:r "$image" sh -c "$open_kmsg"
expect "--device-cgroup-rule 'c 1:11 w' grants the write" opened \
  dk "${run[@]}" --device /dev/kmsg:/dev/kmsg:r --device-cgroup-rule 'c 1:11 w' "$image" \
  sh -c "$open_kmsg"
expect "-u 1000:1000" 1000:1000 dk "${run[@]}" -u 1000:1000 "$image" sh -c 'echo $(id -u):$(id -g)'

# An agent platform's sandboxes (docs/agents.md): the agent profile through
# the handler's runtimeArgs, the audit after `docker rm`, a lifetime.
# (dockerd 20.10 gives every handler the state root EXEC_ROOT/runtime-runc/moby.)
state_root=$tmp/exec/runtime-runc/moby
if ((is_vigil)); then
  expect "vigil-agent: the root read-only, /tmp writable" "refused hi" \
    dk run --rm --runtime vigil-agent --network none "$image" sh -c \
    'touch /probe 2>/dev/null && r=written || r=refused; echo hi >/tmp/t && echo "$r $(cat /tmp/t)"'
  if cid=$(dk run -d --runtime vigil-agent --network none "$image" sh -c 'touch /probe' \
    2>"$tmp/stderr") && dk wait "$cid" >/dev/null 2>&1 && dk rm "$cid" >/dev/null 2>&1; then
    expect "vigil audit after docker rm: the refused write" 1 sh -c \
      '"$0" --root "$1" audit --denied "$2" | grep -c "openat(path=\"/probe\""' \
      "$runtime" "$state_root" "$cid"
  else
    not_ok "vigil audit after docker rm" "$(cat "$tmp/stderr")"
  fi
  # What `docker ps` shows (the name, the 12-character id) finds the audit,
  # without --root: vigil knows dockerd's state root from create.
  name=vigil-audit-by-name-$$
  if cid=$(dk run -d --name "$name" --runtime vigil-agent --network none "$image" sh -c \
    'touch /probe' 2>"$tmp/stderr") && dk wait "$cid" >/dev/null 2>&1; then
    expect "vigil audit NAME (Docker's name, no --root)" 1 sh -c \
      'DOCKER_HOST="unix://$1" "$0" audit --denied "$2" | grep -c "openat(path=\"/probe\""' \
      "$runtime" "$sock" "$name"
    dk rm "$cid" >/dev/null 2>&1
    expect "vigil audit SHORT-ID after docker rm (no --root)" 1 sh -c \
      '"$0" audit --denied "$1" | grep -c "openat(path=\"/probe\""' "$runtime" "${cid:0:12}"
  else
    not_ok "vigil audit NAME" "$(cat "$tmp/stderr")"
  fi
  # A volume the user mounts writable stays writable under agent.
  mkdir -p "$tmp/out"
  expect "vigil-agent: a -v bind mount stays writable" "from the sandbox" sh -c \
    '"$0" -H "unix://$1" run --rm --runtime vigil-agent --network none -v "$3:/out" "$2" \
       sh -c "echo from the sandbox >/out/f" && cat "$3/f"' "$docker_cli" "$sock" "$image" "$tmp/out"
  # docker cp goes through the rootfs on the host: the agent's scratch /tmp
  # must be there too (runtime/container/engine_scratch.h).
  if cid=$(dk run -d --runtime vigil-agent --network none "$image" sleep 100 2>"$tmp/stderr"); then
    echo from-host >"$tmp/cp-in.txt"
    expect "docker cp into /tmp under agent: the container reads it" from-host sh -c \
      '"$0" -H "unix://$1" cp "$2" "$3:/tmp/cp-in.txt" &&
       "$0" -H "unix://$1" exec "$3" cat /tmp/cp-in.txt' "$docker_cli" "$sock" "$tmp/cp-in.txt" "$cid"
    expect "docker cp out of /tmp under agent" from-container sh -c \
      '"$0" -H "unix://$1" exec "$2" sh -c "echo from-container >/tmp/out.txt" &&
       "$0" -H "unix://$1" cp "$2:/tmp/out.txt" - | tar -xO' "$docker_cli" "$sock" "$cid"
    dk rm -f "$cid" >/dev/null 2>&1
  else
    not_ok "docker run -d --runtime vigil-agent" "$(cat "$tmp/stderr")"
  fi
  # A server under agent (uvicorn on 0.0.0.0:8000 as a platform runs it) in
  # the container's own network namespace, published with -p: the bind is
  # the container's own, whatever the egress allow-list says.
  if dk network create --driver bridge -o "com.docker.network.bridge.name=$test_bridge" \
    "$test_network" >/dev/null 2>"$tmp/stderr" &&
    cid=$(dk run -d --runtime vigil-agent --network "$test_network" -p 127.0.0.1::8000 \
      "$image" httpd -f -p 0.0.0.0:8000 -h /etc 2>>"$tmp/stderr"); then
    port=$(dk port "$cid" 8000/tcp 2>/dev/null | sed -n 's/.*://p' | head -n 1)
    expect "vigil-agent: a server on 0.0.0.0:8000 answers through docker run -p" "${cid:0:12}" \
      python3 -c 'import sys, time, urllib.request
for _ in range(50):
    try:
        print(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode().strip()[:12]); break
    except OSError:
        time.sleep(0.2)' "http://127.0.0.1:$port/hostname"
    dk rm -f "$cid" >/dev/null 2>&1
  else
    not_ok "docker run -p --runtime vigil-agent" "$(cat "$tmp/stderr")"
  fi
  dk network rm "$test_network" >/dev/null 2>&1
  # The operator's --timeout (runtimeArgs): TERM to every process when the
  # time is up; this one exits on it (sleep, as pid 1, would be killed after
  # the 10 s grace).
  expect "vigil-timed: TERM when the 3 s are up, the workload's own exit status" 7 sh -c \
    '"$0" -H "unix://$1" run --rm --cidfile "$3" --runtime vigil-timed --network none "$2" \
       sh -c "trap \"exit 7\" TERM; while :; do sleep 1; done" >/dev/null; echo $?' \
    "$docker_cli" "$sock" "$image" "$tmp/timed.cid"
  expect "vigil audit after docker run --rm: the timeout" 1 sh -c \
    '"$0" --root "$1" audit "$2" | grep -c "event timeout(afterMs=3000"' \
    "$runtime" "$state_root" "$(cat "$tmp/timed.cid" 2>/dev/null)"
fi

# A handler whose every pause gives the sandbox's memory back (Docker 20.10's
# pause passes no flags, so the operator's runtimeArgs ask): 32 MiB of page
# cache the sandbox wrote are dropped, and it runs on after unpause.
if ((is_vigil)); then
  if cid=$(dk run -d --runtime vigil-idle --network none "$image" sh -c \
    'dd if=/dev/zero of=/cache bs=1M count=32 2>/dev/null; sync; echo ready >/ready; sleep 100' \
    2>"$tmp/stderr"); then
    for _ in $(seq 50); do dk exec "$cid" cat /ready >/dev/null 2>&1 && break; sleep 0.2; done
    if dk pause "$cid" >/dev/null 2>"$tmp/stderr"; then
      expect "vigil-idle: docker pause releases the page cache" released sh -c \
        '"$0" --root "$1" state "$2" | "$3" 16' "$runtime" "$state_root" "$cid" \
        "$here/released.py"
    else
      not_ok "docker pause --runtime vigil-idle" "$(cat "$tmp/stderr")"
    fi
    dk unpause "$cid" >/dev/null 2>&1
    expect "vigil-idle: docker unpause, the sandbox runs on" ready dk exec "$cid" cat /ready
    dk rm -f "$cid" >/dev/null 2>&1
  else
    not_ok "docker run -d --runtime vigil-idle" "$(cat "$tmp/stderr")"
  fi
fi

# Every container is gone: none may have left its cgroup behind, nor a
# mount (the agent's scratch tmpfs are in the rootfs on the host).
left=$(awk -v dir="$tmp/" 'index($5, dir) == 1 && $0 ~ / - tmpfs vigil-scratch / { print $5 }' \
  /proc/self/mountinfo)
if [[ -z $left ]]; then ok "no scratch tmpfs left mounted"; else
  not_ok "no scratch tmpfs left mounted" "$left"
fi
# Every container is gone: none may have left its cgroup behind.
left=$(for h in $hierarchies; do [[ -d $h/docker ]] && find "$h/docker" -mindepth 1 -type d; done)
if [[ -z $left ]]; then ok "no container cgroup left behind"; else
  not_ok "no container cgroup left behind" "$left"
fi

finish
