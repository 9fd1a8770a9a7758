#!/usr/bin/env bash
# vigil as an unprivileged user: the test makes a user of its own and, as
# that user, runs a `vigil spec --rootless` bundle through the lifecycle a
# runc user would, with the sentry and its audit as under root; then
# podman with vigil as its runtime. (`vigil do` as a user: do.sh.)
#
# usage: rootless.sh RUNTIME   (vigil's binary)
# Prints "ok - ..." / "not ok - ..." per case and "N passed, M failed"; exits
# 77 (skipped) when not root (making a user needs it) or without busybox.
set -uo pipefail

# shellcheck source=tests/clients/lib.sh
source "$(dirname "$0")/lib.sh"
take_runtime_arg "$@"
[[ $EUID -eq 0 ]] || skip "needs root to make an unprivileged user"
busybox=$(command -v busybox) || skip "busybox not installed (busybox-static)"
[[ $(cat /proc/sys/user/max_user_namespaces) -gt 0 ]] ||
  skip "user namespaces are off (user.max_user_namespaces is 0)"

user=vigil-rl-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vigil-rootless.XXXXXX") || exit 1
cleanup() {
  set +e
  pkill -KILL -u "$user" 2>/dev/null
  sleep 0.2
  userdel -r "$user" >/dev/null 2>&1
  rm -rf "$tmp" "/tmp/vigil-$uid"
}
trap cleanup EXIT
useradd --create-home --shell /bin/bash "$user" || exit 1
uid=$(id -u "$user")
# vigil's default state root for this uid; a user that had the uid before
# may have left one.
rm -rf "/tmp/vigil-$uid"
gid=$(id -g "$user")
home=$(getent passwd "$user" | cut -d: -f6)

# The binary where the user can run it (the build tree may be private).
install -m 0755 "$runtime" "$tmp/vigil"
chmod 0755 "$tmp"
bundle=$home/bundle
busybox_rootfs "$bundle/rootfs" "$busybox"
chown -R "$user:" "$bundle"

# as_user COMMAND...: COMMAND as the user, in its bundle, with a clean
# environment (no XDG_RUNTIME_DIR unless the case sets one).
as_user() {
  (cd "$bundle" && setpriv --reuid="$uid" --regid="$gid" --init-groups \
    env -i HOME="$home" PATH=/usr/sbin:/usr/bin:/sbin:/bin USER="$user" "$@")
}
vigil() { as_user "$tmp/vigil" "$@"; }
failure_context() { ls -la "/tmp/vigil-$uid" 2>&1; }

# --- the bundle runc would run --------------------------------------------

expect_rc "vigil spec --rootless writes the bundle's config" 0 vigil spec --rootless
# Not a terminal: the case reads what the shell prints.
as_user python3 - <<'EOF'
import json
with open("config.json") as f:
    config = json.load(f)
config["process"]["terminal"] = False
config["process"]["args"] = ["sh", "-c", "id -u; cat /proc/self/uid_map; hostname"]
with open("config.json", "w") as f:
    json.dump(config, f, indent=2)
EOF
expect "the config maps the user to root in a user namespace" "0 $uid 1" \
  as_user python3 -c 'import json; m = json.load(open("config.json"))["linux"]["uidMappings"][0]
print(m["containerID"], m["hostID"], m["size"])'

expect "run: root inside, the user outside, its own hostname" "0
$(printf '%10u %10u %10u' 0 "$uid" 1)
vigil" vigil run rl-run
expect "its state was under /tmp/vigil-UID, and nothing is left" "" \
  as_user ls -A "/tmp/vigil-$uid" --ignore=.audit
expect "its audit log is kept there" "rl-run.jsonl" as_user ls "/tmp/vigil-$uid/.audit"

mkdir -p "$tmp/xdg" && chown "$user:" "$tmp/xdg" && chmod 0700 "$tmp/xdg"
expect_rc "with XDG_RUNTIME_DIR the state goes there" 0 \
  as_user env XDG_RUNTIME_DIR="$tmp/xdg" "$tmp/vigil" run rl-xdg
expect "... and is gone after run" ".audit" ls -A "$tmp/xdg/vigil"

# --- the lifecycle ----------------------------------------------------------

as_user python3 - <<'EOF'
import json
with open("config.json") as f:
    config = json.load(f)
config["process"]["args"] = ["sleep", "1000"]
with open("config.json", "w") as f:
    json.dump(config, f, indent=2)
EOF
expect_rc "create" 0 vigil create rl-life
expect "state: created" "created" \
  as_user sh -c "$tmp/vigil state rl-life | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"status\"])'"
expect_rc "start" 0 vigil start rl-life
expect "state: running, and the pid is the user's sleep" "running sleep $uid" \
  as_user sh -c "$tmp/vigil state rl-life | python3 -c '
import json, os, sys
s = json.load(sys.stdin)
print(s[\"status\"], open(\"/proc/%d/comm\" % s[\"pid\"]).read().strip(), os.stat(\"/proc/%d\" % s[\"pid\"]).st_uid)'"
expect_rc "kill KILL" 0 vigil kill rl-life KILL
sleep 0.3
expect_rc "delete" 0 vigil delete rl-life
# The supervisor ends with its init; give it a moment.
for _ in $(seq 50); do pgrep -u "$user" >/dev/null || break; sleep 0.1; done
expect "no process of the user is left" "" pgrep -a -u "$user"

# --- what cannot be done without a cgroup -----------------------------------

as_user python3 - <<'EOF'
import json
with open("config.json") as f:
    config = json.load(f)
config["process"]["args"] = ["true"]
config["linux"]["resources"] = {"memory": {"limit": 67108864}}
with open("config.json", "w") as f:
    json.dump(config, f, indent=2)
EOF
if as_user sh -c 'test -w /sys/fs/cgroup/cgroup.subtree_control' 2>/dev/null; then
  ok "# skip: this user may make cgroups here (a delegated cgroup2), so a limit holds"
else
  vigil create rl-limit >/dev/null 2>"$tmp/stderr"
  rc=$?
  if ((rc != 0)) && [[ $(wc -l <"$tmp/stderr") -eq 1 ]] &&
    grep -q "cannot set linux.resources.memory: a user's container could not create its cgroup" "$tmp/stderr"; then
    ok "a memory limit without a cgroup fails create with one line naming it"
  else
    not_ok "a memory limit without a cgroup fails create with one line naming it" \
      "exit $rc; stderr: $(cat "$tmp/stderr")"
  fi
  expect "... and leaves nothing" "" as_user ls -A "/tmp/vigil-$uid" --ignore=.audit
fi

# --- podman as the user, with vigil as its runtime ---------------------------
# Podman runs its runtime as root of a user namespace of its own (the user's
# id and its /etc/subuid range), where the host's cgroups and mknod are not
# its to use.

if ! command -v podman >/dev/null || ! command -v conmon >/dev/null; then
  ok "# skip podman as a user: podman or conmon not installed (scripts/install-deps)"
elif ! command -v newuidmap >/dev/null || ! grep -q "^$user:" /etc/subuid; then
  ok "# skip podman as a user: no newuidmap (uidmap) or no /etc/subuid range for $user"
else
  pod=$home/podman
  as_user mkdir -p "$pod/tmp" "$pod/libpod" "$pod/net"
  as_user tee "$pod/containers.conf" >/dev/null <<EOF
[containers]
netns = "none"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime_supports_json = ["vigil"]
tmp_dir = "$pod/libpod"
[network]
network_config_dir = "$pod/net"
EOF
  tar -C "$bundle/rootfs" -cf "$pod/rootfs.tar" . && chown "$user:" "$pod/rootfs.tar"
  podman_as_user() {
    (cd "$pod" && setpriv --reuid="$uid" --regid="$gid" --init-groups \
      env -i HOME="$home" PATH=/usr/sbin:/usr/bin:/sbin:/bin USER="$user" \
      CONTAINERS_CONF="$pod/containers.conf" TMPDIR="$pod/tmp" \
      timeout 120 podman --root "$pod/storage" --runroot "$pod/run" --storage-driver vfs \
      --runtime "$tmp/vigil" --cgroup-manager cgroupfs --events-backend file \
      --tmpdir "$pod/libpod" --network-config-dir "$pod/net" "$@")
  }
  image=localhost/vigil-rootless/busybox:latest
  expect_rc "podman as a user imports the busybox image" 0 \
    podman_as_user import --quiet --change 'CMD ["sh"]' "$pod/rootfs.tar" "$image"
  expect "podman as a user: run --rm echo, root of its namespace, mapped to the user" "hi 0
$(printf '%10u %10u %10u' 0 "$uid" 1)" \
    podman_as_user run --rm --network none "$image" sh -c 'echo hi $(id -u); head -n 1 /proc/self/uid_map'
  expect_rc "... the exit status comes back" 3 \
    podman_as_user run --rm --network none "$image" sh -c 'exit 3'
  cid=$(podman_as_user run -d --network none "$image" sleep 100 2>"$tmp/stderr")
  expect "... run -d, then inspect shows it running" "running" \
    podman_as_user inspect --format '{{.State.Status}}' "$cid"
  expect_rc "... rm -f stops and removes it" 0 podman_as_user rm -f -t 0 "$cid"
  expect "... and podman has no container left" "" podman_as_user ps -a -q
  podman_as_user system reset --force >/dev/null 2>&1
fi

report
