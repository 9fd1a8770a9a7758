#!/usr/bin/env bash
# vigil as an unprivileged user: the test makes a user of its own and, as
# that user, runs a `vigil spec --rootless` bundle through the lifecycle a
# runc user would, with the sentry and its audit as under root; then
# `vigil do` (docs/do.md); then podman with vigil as its runtime.
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

# --- vigil do ------------------------------------------------------------------

project=$home/project
as_user mkdir -p "$project" "$home/.ssh"
as_user sh -c "echo not-for-the-sandbox > $home/.ssh/id_ed25519"
as_user tee "$project/probe.py" >/dev/null <<'EOF'
import os, socket
home = os.environ["HOME"]
def attempt(what, action):
    try:
        action()
        print(what, "done")
    except OSError as e:
        print(what, "refused", e.errno)
attempt("write cwd", lambda: open("result.txt", "w").write("42"))
attempt("write home", lambda: open(home + "/planted", "w").write("x"))
print("ssh", "holds " + str(sorted(os.listdir(home + "/.ssh"))) if os.path.exists(home + "/.ssh") else "absent")
attempt("connect", lambda: socket.create_connection(("192.0.2.1", 443), timeout=2))
print("uid", os.getuid())
EOF
# do_in_project ARGS...: vigil ARGS as the user, in its project directory.
do_in_project() {
  (cd "$project" && setpriv --reuid="$uid" --regid="$gid" --init-groups \
    env -i HOME="$home" PATH=/usr/sbin:/usr/bin:/sbin:/bin USER="$user" "$tmp/vigil" "$@")
}
expect "do: the working directory is writable, the home is not, ~/.ssh is absent, nothing connects" \
  "write cwd done
write home refused 13
ssh absent
connect refused 101
uid $uid" do_in_project do --audit "$home/do.jsonl" -- python3 probe.py
expect "... what it wrote in the working directory is the user's" "42 $user" \
  sh -c "echo \$(cat '$project/result.txt') \$(stat -c %U '$project/result.txt')"
expect_rc "... nothing was planted in the home" 2 ls "$home/planted"
expect "... its audit shows the refusals" "openat $home/planted deny
connect 192.0.2.1:443 deny" python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("decision") == "deny":
        a = r["args"]
        print(r["syscall"], a.get("path") or a.get("address"), r["decision"])' "$home/do.jsonl"
expect "... and it left no state behind" "" as_user ls -A "/tmp/vigil-$uid/.do"
do_in_project do --summary -- python3 probe.py >/dev/null 2>"$tmp/summary"
expect "do --summary lists the two refusals" "2" grep -c ' = deny ' "$tmp/summary"
expect_rc "do returns the command's exit status" 7 do_in_project do -- sh -c 'exit 7'
# A unix server and client inside the sandbox: agent's egress rules have
# the sentry make the connect and the sends as the user, in a user
# namespace whose setgroups is denied (issue 37: the supervisor ended).
as_user tee "$project/unix_ipc.py" >/dev/null <<'EOF'
import os, socket
path = "/tmp/ipc.sock"  # the sandbox's own: sockets elsewhere are the host's
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(1)
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
client.connect(path)
client.sendall(b"over unix")
conn, _ = server.accept()
print(conn.recv(64).decode())
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
d.bind(path + ".d")
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"and a datagram", path + ".d")
print(d.recv(64).decode())
EOF
expect "do: unix IPC inside the sandbox, connects and sends made by the sentry" "over unix
and a datagram" do_in_project do --audit "$home/ipc.jsonl" -- python3 unix_ipc.py
expect "... decided and audited" "connect sendto" python3 -c '
import json, sys
seen = {json.loads(l)["syscall"] for l in open(sys.argv[1])}
print(*sorted(seen & {"connect", "sendto"}))' "$home/ipc.jsonl"
# Ctrl-C without a terminal: the client's SIGINT ends even a command that,
# as pid 1 of its namespace, ignores it (TERM, then KILL 2 s later).
do_in_project do -- sleep 1000 </dev/null >/dev/null 2>&1 &
do_pid=$!
for _ in $(seq 100); do pgrep -u "$user" -x sleep >/dev/null && break; sleep 0.1; done
pkill -INT -u "$user" -x vigil
wait "$do_pid"
rc=$?
if ((rc == 137)); then ok "Ctrl-C ends do's command"; else not_ok "Ctrl-C ends do's command" "exit $rc"; fi

# Limits without a cgroup (issue 38): this host gives a user no cgroup, so
# the policy's default limits hold by other means — processes by
# RLIMIT_NPROC in the sandbox's own user namespace (the user's other
# processes do not count), memory by the supervisor, which ends the
# sandbox past it, for one process or many.
as_user tee "$project/bombs.py" >/dev/null <<'EOF'
import os, sys, time
if sys.argv[1] == "fork":
    children = []
    for _ in range(200):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    print("forked", len(children))
    sys.exit(0)
held = []
workers = 4 if sys.argv[1] == "memory-many" else 1
for _ in range(workers - 1):
    if os.fork() == 0:
        break
for _ in range(32):  # 64 MiB at a time, touched, up to 2 GiB
    held.append(bytearray(64 << 20))
    time.sleep(0.05)
print("held", len(held) * 64, "MiB")
EOF
limits_policy='{"extends": "agent", "defaultLimits": {"pids": 32, "memoryBytes": 268435456}}'
fork_bomb() {
  do_in_project do --policy "$limits_policy" -- python3 bombs.py fork 2>/dev/null |
    sed -E 's/^forked ([0-9]|[12][0-9]|3[01])$/forked fewer than 32/'
}
expect "do as a user without a cgroup: a fork bomb stops at the pids limit" "forked fewer than 32" \
  fork_bomb
expect_rc "... a memory bomb is ended at the memory limit (137)" 137 \
  do_in_project do --policy "$limits_policy" --audit "$home/bomb.jsonl" -- python3 bombs.py memory
expect "... audited as memory-limit" "memory-limit" python3 -c '
import json, sys
print(*sorted({json.loads(l).get("event", "") for l in open(sys.argv[1])} & {"memory-limit"}))' \
  "$home/bomb.jsonl"
expect_rc "... and so is one spread over four processes" 137 \
  do_in_project do --policy "$limits_policy" -- python3 bombs.py memory-many
cp "$tmp/stderr" "$tmp/ended"  # expect's own stderr goes there next
expect "... and do says why in one line" "1" \
  grep -c "^vigil do: ended: it held .* past its limit of 268435456" "$tmp/ended"
expect_rc "do --timeout ends the command (137)" 137 do_in_project do --timeout 1s -- sleep 30
cp "$tmp/stderr" "$tmp/ended"
expect "... and says so in one line" "1" \
  grep -c "^vigil do: ended: it ran past its timeout (1000 ms)" "$tmp/ended"

# Credentials stay hidden for the whole run (issue 38): git's credential
# store renames a lock file over its file, `aws configure` creates one,
# both while the command runs; it looks once the host is done.
as_user sh -c "echo old-secret > $home/.git-credentials"
do_in_project do -- sh -c 'while [ ! -e go ]; do sleep 0.1; done
  cat ~/.git-credentials ~/.aws/credentials 2>/dev/null; echo looked' >"$tmp/looked" 2>/dev/null &
looker=$!
sleep 1
as_user sh -c "echo new-secret > $home/.git-credentials.lock &&
  mv $home/.git-credentials.lock $home/.git-credentials &&
  mkdir -p $home/.aws && echo aws-secret > $home/.aws/credentials && touch $project/go"
wait "$looker"
expect "do: a credential replaced or created during the run stays hidden" "looked" cat "$tmp/looked"
rm -f "$project/go"

# Delayed escapes (issue 38): what the host later runs from the writable
# working directory stays read-only there — a repository's hooks and
# config, direnv's .envrc — and each refusal is in the summary.
as_user git init -q "$project"
config_before=$(md5sum <"$project/.git/config")
do_in_project do --summary -- sh -c '
  echo "echo planted" > .git/hooks/post-checkout
  echo "[core] fsmonitor = planted" >> .git/config
  echo "echo planted" > .envrc
  echo ok > fine.txt' >/dev/null 2>"$tmp/summary"
expect "do: .git/hooks, .git/config and .envrc stay the user's; other files are written"   "no hook, config unchanged, no .envrc, fine.txt ok" sh -c "
  h=hook; [ -e '$project/.git/hooks/post-checkout' ] || h='no hook'
  c='config changed'; [ \"\$(md5sum <'$project/.git/config')\" = '$config_before' ] && c='config unchanged'
  e=.envrc; [ -e '$project/.envrc' ] || e='no .envrc'
  echo \"\$h, \$c, \$e, fine.txt \$(cat '$project/fine.txt')\""
expect "... and the summary names each refusal" "3" \
  grep -cE "(post-checkout|\.git/config|\.envrc).* = deny" "$tmp/summary"

# Host daemons (issue 38): a daemon's socket under the home (colima's
# docker.sock) is refused unless --allow-socket names it, and audited.
as_user mkdir -p "$home/.colima/default"
daemon_sock=$home/.colima/default/docker.sock
as_user python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
while True:
    c, _ = s.accept()
    open(sys.argv[1] + ".reached", "a").write("x")
    c.close()' "$daemon_sock" &
daemon_pid=$!
for _ in $(seq 50); do [[ -S $daemon_sock ]] && break; sleep 0.1; done
connect_daemon="import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print('connected')
except OSError as e:
    print('refused', e.errno)"
expect "do: a daemon's socket under the home is refused" "refused 13" \
  do_in_project do -- python3 -c "$connect_daemon" "$daemon_sock"
expect "... and reached with --allow-socket" "connected" \
  do_in_project do --allow-socket "$daemon_sock" -- python3 -c "$connect_daemon" "$daemon_sock"
expect "... once" "x" cat "$daemon_sock.reached"
kill "$daemon_pid" 2>/dev/null

# The same as root: a root-only daemon under /var/lib (where Incus keeps
# its socket), and a repository's hooks.
root_project=$tmp/root-project
var_sock_dir=$(mktemp -d /var/lib/vigil-daemon.XXXXXX)
git init -q "$root_project"
python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o600)
s.listen(4)
while True:
    c, _ = s.accept()
    c.close()' "$var_sock_dir/unix.socket" &
root_daemon=$!
for _ in $(seq 50); do [[ -S $var_sock_dir/unix.socket ]] && break; sleep 0.1; done
expect "do as root: a root-only daemon's socket under /var/lib is refused" "refused 13" \
  sh -c "cd '$root_project' && '$tmp/vigil' do -- python3 -c \"\$1\" '$var_sock_dir/unix.socket'" \
  _ "$connect_daemon"
expect_rc "do as root: .git/hooks stays read-only (sh: Permission denied)" 2 \
  sh -c "cd '$root_project' && '$tmp/vigil' do -- sh -c 'echo x > .git/hooks/pre-commit'"
kill "$root_daemon" 2>/dev/null
rm -rf "$var_sock_dir"

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
