#!/usr/bin/env bash
# Kubernetes runs pods with vigil: containerd's CRI service (a private
# containerd, its own socket, root and state in a temporary directory) with
# two runtime handlers, `runc` (Debian's runc, the reference) and `vigil` (the
# runtime under test), both `runtime_type = "io.containerd.runc.v2"` with
# options.BinaryName — what a node is given by `vigil install --containerd`
# and a pod by `runtimeClassName: vigil`. A small CRI client
# (cri/crictl.py: python3-grpcio and a CRI subset compiled by protoc) makes the
# calls a kubelet makes for one pod: run the sandbox, create and start a
# container, exec in it, stop it, remove it, stop and remove the sandbox. The
# same cases run with handler runc first, then with handler vigil.
#
# No registry and no network: the sandbox ("pause") image is busybox running
# `sleep infinity` (make_image.py, then cri/set_cmd.py), imported with ctr;
# the pods use the node's network namespace (namespace_options.network = NODE,
# as a hostNetwork pod), so the CRI plugin never calls a CNI plugin, its CNI
# config directory is an empty temporary one, and nothing on the host's network
# changes. restrict_oom_score_adj is on: root here cannot lower oom_score_adj.
#
# usage: cri.sh RUNTIME   (vigil's binary; /usr/sbin/runc works as well)
# Prints "ok - ..." / "not ok - ..." per case and "N passed, M failed"; exits 77
# (skipped) when not root or containerd, runc, python3-grpcio or protoc is
# missing, non-zero on a failure.
set -uo pipefail

# shellcheck source=tests/clients/lib.sh
source "$(dirname "$0")/lib.sh"
take_runtime_arg "$@"
[[ $EUID -eq 0 ]] || skip "needs root (containerd)"
containerd=$(command -v containerd) || skip "containerd not installed (scripts/install-deps: containerd)"
ctr=$(command -v ctr) || skip "ctr not installed (it comes with containerd)"
command -v containerd-shim-runc-v2 >/dev/null || skip "containerd-shim-runc-v2 not installed"
runc=$(command -v runc) || skip "runc not installed (the reference handler)"
busybox=$(command -v busybox) || skip "busybox not installed (busybox-static)"
# Debian's interpreter: python3-grpcio and python3-protobuf are installed for
# it, not for another python3 earlier on PATH.
python=/usr/bin/python3
[[ -x $python ]] || skip "/usr/bin/python3 not installed"
"$python" -c 'import grpc, google.protobuf' 2>/dev/null ||
  skip "python3-grpcio or python3-protobuf not installed (scripts/install-deps)"
"$python" -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed (scripts/install-deps)"
protoc=$(command -v protoc) || skip "protoc not installed (scripts/install-deps: protobuf-compiler)"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vigil-cri.XXXXXX") || exit 1
sock=$tmp/containerd.sock
pause=localhost/vigil-pause:test
image=localhost/vigil-busybox:test
# The pods' parent cgroup (CRI's cgroup_parent): removed at the end.
cgroup_parent=vigil-cri-$$
containerd_pid=""

# shellcheck disable=SC2317  # called from cleanup, a trap

# Everything the test started: its pods through the CRI, containerd by pid,
# then by pid whatever is left (the processes in the pods' cgroups, the
# shims), the shims' sockets, the cgroups, every mount under $tmp, and $tmp.
# shellcheck disable=SC2317  # a trap
cleanup() {
  set +e
  if [[ -n $containerd_pid ]] && kill -0 "$containerd_pid" 2>/dev/null; then
    local id
    for id in $(cri --rpc-timeout 10 pods 2>/dev/null); do
      cri --rpc-timeout 30 stopp "$id" >/dev/null 2>&1
      cri --rpc-timeout 30 rmp "$id" >/dev/null 2>&1
    done
  fi
  containerd_teardown "$containerd_pid" "$sock" "$tmp" k8s.io "$cgroup_parent"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

c() { timeout 60 "$ctr" -a "$sock" -n k8s.io "$@"; }
cri() { PYTHONPATH=$tmp/gen timeout 120 "$python" "$here/cri/crictl.py" --endpoint "unix://$sock" "$@"; }

# The runtime's log of every task (its --log, JSON lines), shown under a
# failed case; and a case's command must also succeed.
expect_success=1
failure_context() {
  local log
  for log in "$tmp"/state/io.containerd.runtime.v2.task/k8s.io/*/log.json; do
    [[ -s $log ]] && { echo "$log:"; tail -n 5 "$log"; }
  done
}
finish() {
  if ((failed)); then
    echo "# containerd's log (warnings and errors, last 40):"
    grep -v 'level=info' "$tmp/containerd.log" | tail -n 40 | sed 's/^/#   /'
  fi
  report
  exit
}

# write_config SNAPSHOTTER: containerd's config with the CRI plugin on.
write_config() {
  cat >"$tmp/config.toml" <<EOF
version = 2
root = "$tmp/root"
state = "$tmp/state"
disabled_plugins = [
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

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause"
  restrict_oom_score_adj = true
  disable_apparmor = true
  # The exec/attach streaming server: loopback, a port the kernel picks.
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "$1"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$runc"
        Root = "$tmp/runtime-root/runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.vigil]
      runtime_type = "io.containerd.runc.v2"
      pod_annotations = ["dev.vigil.*"]
      container_annotations = ["dev.vigil.*"]
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.vigil.options]
        BinaryName = "$runtime"
        Root = "$tmp/runtime-root/vigil"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$tmp/cni-bin"
    conf_dir = "$tmp/cni-conf"
EOF
}

# start_containerd: starts it on $tmp/config.toml; false when it does not
# answer (its log says why).
start_containerd() {
  "$containerd" --config "$tmp/config.toml" >>"$tmp/containerd.log" 2>&1 &
  containerd_pid=$!
  for _ in $(seq 150); do
    cri --rpc-timeout 2 version >/dev/null 2>&1 && return 0
    kill -0 "$containerd_pid" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}
stop_containerd() {
  kill -TERM "$containerd_pid"
  wait "$containerd_pid" 2>/dev/null
  containerd_pid=""
}

mkdir -p "$tmp/gen" "$tmp/cni-bin" "$tmp/cni-conf" "$tmp/logs" "$tmp/runtime-root"
if ! out=$("$protoc" -I "$here/cri" --python_out="$tmp/gen" "$here/cri/cri_subset.proto" 2>&1); then
  not_ok "protoc compiles cri/cri_subset.proto" "$out"
  finish
fi

echo "# handlers: runc=$runc vigil=$runtime; $("$containerd" --version)"
write_config overlayfs
if ! start_containerd; then
  not_ok "containerd starts with the CRI plugin" "$(tail -n 30 "$tmp/containerd.log")"
  finish
fi
# overlayfs when it loaded (it test-mounts on $tmp), else native (copies):
# the CRI plugin unpacks and runs with one snapshotter, named in its config.
snapshotter=overlayfs
if ! c plugins ls 2>/dev/null | awk '$2 == "overlayfs" && $NF == "ok"' | grep -q .; then
  snapshotter=native
  stop_containerd
  write_config native
  if ! start_containerd; then
    not_ok "containerd starts with the CRI plugin" "$(tail -n 30 "$tmp/containerd.log")"
    finish
  fi
fi
echo "# snapshotter: $snapshotter"
# shellcheck disable=SC2317  # run through expect
cri_name_and_api() { cri version | awk '{ print $1, $3 }'; }
# shellcheck disable=SC2317  # run through expect
runtime_ready() { cri status | awk '/^RuntimeReady=/'; }
expect "CRI Version: containerd, API v1" "containerd v1" cri_name_and_api
expect "CRI Status: RuntimeReady" "RuntimeReady=true" runtime_ready

# The images: busybox, and the pause image made from it; no registry.
export CONTAINERD_SNAPSHOTTER=$snapshotter
if ! out=$(python3 "$here/make_image.py" "$image" "$tmp/image.tar" "$busybox" 2>&1 &&
  "$python" "$here/cri/set_cmd.py" "$tmp/image.tar" "$tmp/pause.tar" "$pause" \
    sleep infinity 2>&1); then
  not_ok "make_image.py and cri/set_cmd.py" "$out"
  finish
fi
for tar in image.tar pause.tar; do
  if ! out=$(c image import "$tmp/$tar" 2>&1); then
    not_ok "ctr -n k8s.io image import $tar" "$out"
    finish
  fi
done
# The CRI plugin learns of imported images from containerd's events.
for _ in $(seq 50); do
  [[ -n $(cri image-id "$pause" 2>/dev/null) && -n $(cri image-id "$image" 2>/dev/null) ]] && break
  sleep 0.2
done
if [[ -n $(cri image-id "$pause" 2>/dev/null) && -n $(cri image-id "$image" 2>/dev/null) ]]; then
  ok "CRI ImageStatus sees the imported busybox and pause images"
else
  not_ok "CRI ImageStatus sees the imported images" "$(c image ls 2>&1)"
  finish
fi

# pod_json NAME ANNOTATIONS: a PodSandboxConfig as a kubelet sends it for a
# hostNetwork pod (network NODE, pid per container, IPC shared by the pod).
pod_json() {
  cat <<EOF
{
  "metadata": {"name": "$1", "uid": "uid-$1", "namespace": "vigil-test", "attempt": 0},
  "hostname": "",
  "logDirectory": "$tmp/logs/$1",
  "labels": {"app": "$1"},
  "annotations": {$2},
  "linux": {
    "cgroupParent": "/$cgroup_parent/$1",
    "securityContext": {"namespaceOptions": {"network": "NODE", "pid": "CONTAINER", "ipc": "POD"}}
  }
}
EOF
}
# container_json NAME ARGS...: a ContainerConfig running busybox with ARGS.
container_json() {
  local name=$1 args
  shift
  args=$(printf '"%s",' "$@")
  cat <<EOF
{
  "metadata": {"name": "$name", "attempt": 0},
  "image": {"image": "$image"},
  "command": [${args%,}],
  "logPath": "$name.log",
  "linux": {"securityContext": {"namespaceOptions": {"network": "NODE", "pid": "CONTAINER", "ipc": "POD"}}}
}
EOF
}

# pod_listed ID: ID when ListPodSandbox has it.
# shellcheck disable=SC2317  # run through expect
pod_listed() { cri pods | awk -v id="$1" '$0 == id'; }
# state_left HANDLER: what the handler's runtime root holds for containerd's
# k8s.io namespace (one directory per container it has not deleted), but for
# vigil's kept audit logs (.audit), which outlive the containers on purpose.
# shellcheck disable=SC2317  # run through expect
state_left() { ls -A "$tmp/runtime-root/$1/k8s.io" 2>/dev/null | grep -vx .audit || true; }
# cri_log FILE: the stream, tag and text of each line of a CRI log file.
# shellcheck disable=SC2317  # run through expect
cri_log() { awk '{ print $2, $3, $4 }' "$1"; }

# remove_pod ID: StopPodSandbox, then RemovePodSandbox.
# shellcheck disable=SC2317  # run through expect
remove_pod() { cri stopp "$1" && cri rmp "$1"; }

# wait_state ID STATE: until `cri inspect ID` starts with STATE (10 s).
wait_state() {
  for _ in $(seq 50); do
    [[ $(cri inspect "$1" 2>/dev/null) == "$2"* ]] && return 0
    sleep 0.2
  done
  return 1
}

# pod_cases HANDLER: one pod's life with HANDLER, as a kubelet drives it.
pod_cases() {
  local h=$1 pod="pod-$1" ctr_name="main" pod_id ctr_id log
  mkdir -p "$tmp/logs/$pod"
  pod_json "$pod" "" >"$tmp/$pod.json"
  container_json "$ctr_name" sh -c 'echo started; exec sleep 1000' >"$tmp/$pod-ctr.json"
  if pod_id=$(cri runp "$tmp/$pod.json" "$h" 2>"$tmp/stderr") && [[ -n $pod_id ]]; then
    ok "$h: RunPodSandbox"
  else
    not_ok "$h: RunPodSandbox" "$(cat "$tmp/stderr")
$(failure_context)"
    return
  fi
  expect "$h: PodSandboxStatus: ready, handler $h" "SANDBOX_READY $h" cri inspectp "$pod_id"

  if ctr_id=$(cri create "$pod_id" "$tmp/$pod-ctr.json" "$tmp/$pod.json" 2>"$tmp/stderr") &&
    [[ -n $ctr_id ]]; then
    ok "$h: CreateContainer"
  else
    not_ok "$h: CreateContainer" "$(cat "$tmp/stderr")
$(failure_context)"
    return
  fi
  expect "$h: ContainerStatus after create: CREATED" "CONTAINER_CREATED 0" cri inspect "$ctr_id"
  expect "$h: StartContainer" "" cri start "$ctr_id"
  expect "$h: ContainerStatus: RUNNING" "CONTAINER_RUNNING 0" cri inspect "$ctr_id"
  # The container's stdout, in the CRI log format ("TIME stdout F LINE").
  log=$tmp/logs/$pod/$ctr_name.log
  for _ in $(seq 50); do grep -q ' stdout F started$' "$log" 2>/dev/null && break; sleep 0.2; done
  expect "$h: the container's stdout reaches its CRI log" "stdout F started" cri_log "$log"

  expect "$h: ExecSync echo" "from-exec" cri exec "$ctr_id" echo from-exec
  expect_rc "$h: ExecSync exit status" 5 cri exec "$ctr_id" sh -c 'exit 5'
  expect "$h: ExecSync sees the container's process" "sleep 1000" \
    cri exec "$ctr_id" sh -c 'cat /proc/1/cmdline | tr "\0" " " | sed "s/ $//"'
  # Without a policy annotation the root is writable, as with runc.
  expect_rc "$h: the container's root is writable (no policy)" 0 cri exec "$ctr_id" touch /written
  # The pod's IPC namespace is its own, not the node's.
  local host_ipc
  host_ipc=$(readlink /proc/self/ns/ipc)
  expect "$h: the container is not in the node's IPC namespace" "other" \
    cri exec "$ctr_id" sh -c "[ \"\$(readlink /proc/self/ns/ipc)\" = '$host_ipc' ] && echo node || echo other"

  # What a kubelet does on pod deletion: stop with a grace period (sleep, as
  # pid 1, ignores SIGTERM, so it is killed when the period ends), remove,
  # stop and remove the sandbox.
  expect "$h: StopContainer (2 s grace)" "" cri stop --timeout 2 "$ctr_id"
  wait_state "$ctr_id" CONTAINER_EXITED
  expect "$h: ContainerStatus: EXITED, 137 (SIGKILL)" "CONTAINER_EXITED 137" cri inspect "$ctr_id"
  expect "$h: RemoveContainer" "" cri rm "$ctr_id"
  expect "$h: ListContainers: none left in the pod" "" cri ps "$pod_id"
  expect "$h: StopPodSandbox" "" cri stopp "$pod_id"
  expect "$h: PodSandboxStatus: not ready" "SANDBOX_NOTREADY $h" cri inspectp "$pod_id"
  expect "$h: RemovePodSandbox" "" cri rmp "$pod_id"
  expect "$h: ListPodSandbox: gone" "" pod_listed "$pod_id"
  expect "$h: no state left under the handler's runtime root" "" state_left "$h"
}

# policy_cases: pods annotated dev.vigil.policy with handler vigil, whose
# pod_annotations pass dev.vigil.* on (deploy/kubernetes/pod.yaml): the agent
# profile is taken, and an unknown one is refused by vigil, which shows the
# annotation reached it. (What the agent profile enforces is the sentry's to
# test; this checks the route from the pod to vigil.)
policy_cases() {
  local pod=pod-agent pod_id ctr_id
  mkdir -p "$tmp/logs/$pod"
  pod_json "$pod" '"dev.vigil.policy": "agent"' >"$tmp/$pod.json"
  container_json main sleep 1000 >"$tmp/$pod-ctr.json"
  if ! pod_id=$(cri runp "$tmp/$pod.json" vigil 2>"$tmp/stderr") ||
    ! ctr_id=$(cri create "$pod_id" "$tmp/$pod-ctr.json" "$tmp/$pod.json" 2>>"$tmp/stderr") ||
    ! cri start "$ctr_id" 2>>"$tmp/stderr"; then
    not_ok "vigil: a pod annotated dev.vigil.policy=agent runs" "$(cat "$tmp/stderr")
$(failure_context)"
    return
  fi
  ok "vigil: a pod annotated dev.vigil.policy=agent runs"
  expect "vigil: ExecSync in the agent pod" "from-agent" cri exec "$ctr_id" echo from-agent
  expect "vigil: the annotated pod stops and is removed" "" remove_pod "$pod_id"

  pod="pod-bad-policy"
  mkdir -p "$tmp/logs/$pod"
  pod_json "$pod" '"dev.vigil.policy": "no-such-profile"' >"$tmp/$pod.json"
  if pod_id=$(cri runp "$tmp/$pod.json" vigil 2>"$tmp/stderr"); then
    not_ok "vigil: refuses a pod annotated with an unknown policy" "RunPodSandbox gave $pod_id"
    remove_pod "$pod_id" >/dev/null 2>&1
  elif grep -q 'dev.vigil.policy: unknown policy profile' "$tmp/stderr"; then
    ok "vigil: refuses a pod annotated with an unknown policy (the annotation reaches it)"
  else
    not_ok "vigil: refuses a pod annotated with an unknown policy" "$(cat "$tmp/stderr")"
  fi
}

# platform_cases: an agent platform's sandbox pod (docs/agents.md): a policy
# extending agent inline, a lifetime with its grace, both as pod
# annotations; the pod's container is killed when its time is up, and its
# audit outlives RemoveContainer.
platform_cases() {
  local pod=pod-sandbox pod_id ctr_id
  local policy='{\"extends\": \"agent\", \"files\": {\"rules\": [{\"path\": \"/out/**\", \"access\": \"write\"}]}}'
  mkdir -p "$tmp/logs/$pod"
  pod_json "$pod" "\"dev.vigil.policy\": \"$policy\", \"dev.vigil.timeout\": \"6s\",
    \"dev.vigil.timeout-grace\": \"1s\"" >"$tmp/$pod.json"
  container_json main sleep 1000 >"$tmp/$pod-ctr.json"
  if ! pod_id=$(cri runp "$tmp/$pod.json" vigil 2>"$tmp/stderr") ||
    ! ctr_id=$(cri create "$pod_id" "$tmp/$pod-ctr.json" "$tmp/$pod.json" 2>>"$tmp/stderr") ||
    ! cri start "$ctr_id" 2>>"$tmp/stderr"; then
    not_ok "vigil: a sandbox pod with a policy extending agent and a timeout runs" \
      "$(cat "$tmp/stderr")
$(failure_context)"
    return
  fi
  ok "vigil: a sandbox pod with a policy extending agent and a timeout runs"
  expect "vigil: the sandbox's root is read-only, /out and /tmp writable" "refused out tmp" \
    cri exec "$ctr_id" sh -c 'touch /probe 2>/dev/null && r=written || r=refused
      echo out >/out/f && echo tmp >/tmp/f && echo "$r $(cat /out/f) $(cat /tmp/f)"'
  wait_state "$ctr_id" CONTAINER_EXITED
  expect "vigil: dev.vigil.timeout=6s: sleep killed after the grace, 137" "CONTAINER_EXITED 137" \
    cri inspect "$ctr_id"
  expect "vigil: RemoveContainer of the timed-out container" "" cri rm "$ctr_id"
  expect "vigil: the timed-out pod stops and is removed" "" remove_pod "$pod_id"
  expect "vigil audit after RemoveContainer: TERM, then KILL" "SIGTERM SIGKILL" sh -c \
    '"$0" --root "$1" audit "$2" | grep -o "event timeout(.*signal=\"SIG[A-Z]*\"" |
       grep -o "SIG[A-Z]*" | tr "\n" " " | sed "s/ $//"' \
    "$runtime" "$tmp/runtime-root/vigil/k8s.io" "$ctr_id"
}

# manifest_case FILE KIND POD: the first KIND of deploy/kubernetes/FILE (a
# Pod, or the Agent Sandbox template's pod), passed to the CRI as a kubelet
# would (cri/pod_manifest.py), with handler vigil: what the manifest
# promises holds inside. The node's network (no CNI here), so a listener on
# the node's loopback stands for the outside the pod must not reach.
manifest_case() {
  local file=deploy/kubernetes/$1 kind=$2 pod=$3 pod_id ctr_id out
  mkdir -p "$tmp/logs/$pod"
  pod_json "$pod" "" >"$tmp/$pod-base.json"
  container_json main true >"$tmp/$pod-ctr-base.json"
  if ! out=$("$python" "$here/cri/pod_manifest.py" "$repo/$file" "$kind" "$tmp/$pod-base.json" \
    "$tmp/$pod-ctr-base.json" "$image" "$tmp/$pod.json" "$tmp/$pod-ctr.json" 2>&1); then
    not_ok "$file: the kubelet's CRI requests" "$out"
    return
  fi
  if ! pod_id=$(cri runp "$tmp/$pod.json" vigil 2>"$tmp/stderr") ||
    ! ctr_id=$(cri create "$pod_id" "$tmp/$pod-ctr.json" "$tmp/$pod.json" 2>>"$tmp/stderr") ||
    ! cri start "$ctr_id" 2>>"$tmp/stderr"; then
    not_ok "$file: its $kind runs under vigil" "$(cat "$tmp/stderr")
$(failure_context)"
    [[ -n $pod_id ]] && remove_pod "$pod_id" >/dev/null 2>&1
    return
  fi
  ok "$file: its $kind runs under vigil"
  expect "$file: as the manifest's user" "1000 1000" cri exec "$ctr_id" sh -c 'echo $(id -u) $(id -g)'
  expect "$file: the image read-only, /tmp writable" "refused written" cri exec "$ctr_id" sh -c \
    'touch /probe 2>/dev/null && r=written || r=refused; touch /tmp/probe && echo "$r written"'
  expect "$file: no new privileges, no capabilities" "1 0000000000000000" cri exec "$ctr_id" sh -c \
    'echo $(awk "/^NoNewPrivs/ { print \$2 }" /proc/self/status) $(awk "/^CapEff/ { print \$2 }" /proc/self/status)'
  expect "$file: nothing reached outside the pod" refused cri exec "$ctr_id" sh -c \
    "nc -w 2 127.0.0.1 $listener_port </dev/null >/dev/null 2>&1 && echo connected || echo refused"
  expect "$file: the pod stops and is removed" "" remove_pod "$pod_id"
}

# install_case: the block `vigil install --containerd` writes is the one this
# test runs with: containerd reads it back (config dump) with the handler's
# type, annotations and binary.
install_case() {
  printf 'version = 2\nroot = "%s"\n' "$tmp/root" >"$tmp/installed.toml"
  if ! out=$("$runtime" install --containerd --config "$tmp/installed.toml" --path "$runtime" 2>&1); then
    not_ok "vigil install --containerd" "$out"
    return
  fi
  local dump
  dump=$("$containerd" --config "$tmp/installed.toml" config dump 2>&1 |
    awk '/runtimes\.vigil\]/ { on = 1 } /runtimes\.vigil\.options\]/ { on = 2 }
         on && /runtime_type|pod_annotations|BinaryName/ { gsub(/^ +/, ""); print }
         on == 2 && /BinaryName/ { exit }')
  expect "containerd reads the handler vigil install --containerd wrote" \
    "pod_annotations = [\"dev.vigil.*\"]
runtime_type = \"io.containerd.runc.v2\"
BinaryName = \"$runtime\"" echo "$dump"
}

# The cases of vigil's own features only when the runtime under test is vigil
# (the script also runs with runc as both handlers, as a check of itself).
is_vigil=0
[[ $("$runtime" --version 2>/dev/null) == "vigil version"* ]] && is_vigil=1
((is_vigil)) && install_case
pod_cases runc
pod_cases vigil
((is_vigil)) && policy_cases
((is_vigil)) && platform_cases
if ((is_vigil)); then
  # A listener on the node's loopback: reached by a pod with egress, not by
  # one under agent.
  "$python" -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.close()' >"$tmp/listener.port" 2>/dev/null &
  listener_pid=$!
  for _ in $(seq 50); do [[ -s $tmp/listener.port ]] && break; sleep 0.1; done
  listener_port=$(cat "$tmp/listener.port")
  expect "the node's listener takes connections (the control)" connected "$python" -c \
    'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2); print("connected")' \
    "$listener_port"
  manifest_case pod.yaml Pod pod-manifest
  manifest_case agent-sandbox.yaml SandboxTemplate sandbox-template
  kill "$listener_pid" 2>/dev/null
fi

finish
