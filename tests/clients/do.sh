#!/usr/bin/env bash
# `vigil do` on a developer's machine (docs/do.md), as a new user would run
# it and as an agent's code would attack it: the test makes a user with a
# fresh home holding a git repository, the usual credential stores and a
# daemon's socket, puts a root-only daemon's socket under /var/lib, and
# runs each class of containment as that user and as root:
#   secrets    every credential store absent, each attempt a refusal;
#              replaced or created on the host meanwhile: still absent;
#   the host   what it runs later (.git hooks and config, .envrc) stays
#              read-only in the writable working directory;
#   daemons    connects to the host's unix sockets refused unless named;
#   limits     a fork bomb and a memory bomb stopped, and said why;
# each refusal in --summary. Then what only the user's sandbox has: its
# state, unix IPC through the sentry, Ctrl-C, limits without a cgroup.
#
# usage: do.sh RUNTIME   (vigil's binary)
# Prints "ok - ..." / "not ok - ..." per case and "N passed, M failed"; exits
# 77 (skipped) when not root (making a user needs it).
set -uo pipefail

# shellcheck source=tests/clients/lib.sh
source "$(dirname "$0")/lib.sh"
take_runtime_arg "$@"
[[ $EUID -eq 0 ]] || skip "needs root to make an unprivileged user"
[[ $(cat /proc/sys/user/max_user_namespaces) -gt 0 ]] ||
  skip "user namespaces are off (user.max_user_namespaces is 0)"
command -v git >/dev/null || skip "git not installed"

user=vigil-do-$$
root_home=/home/vigil-do-root-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vigil-do.XXXXXX") || exit 1
var_sock_dir=$(mktemp -d /var/lib/vigil-daemon.XXXXXX) || exit 1
daemons=()
cleanup() {
  set +e
  ((${#daemons[@]})) && kill "${daemons[@]}" 2>/dev/null
  pkill -f "$root_home|$var_sock_dir" 2>/dev/null  # the daemons AS... started
  pkill -KILL -u "$user" 2>/dev/null
  sleep 0.2
  userdel -r "$user" >/dev/null 2>&1
  rm -rf "$tmp" "$var_sock_dir" "$root_home" "/tmp/vigil-$uid"
}
trap cleanup EXIT
useradd --create-home --shell /bin/bash "$user" || exit 1
uid=$(id -u "$user")
gid=$(id -g "$user")
home=$(getent passwd "$user" | cut -d: -f6)
rm -rf "/tmp/vigil-$uid"  # a user that had the uid before may have left state

# The binary where the user can run it (the build tree may be private).
install -m 0755 "$runtime" "$tmp/vigil"
chmod 0755 "$tmp"
path=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# as_user COMMAND...: COMMAND as the user, with a clean environment.
as_user() {
  setpriv --reuid="$uid" --regid="$gid" --init-groups \
    env -i HOME="$home" PATH="$path" USER="$user" "$@"
}
as_root() { env -i HOME="$root_home" PATH="$path" USER=root "$@"; }
# as WHO COMMAND...: as the user or as root, each with a home of its own
# (root's sandbox has none of the capabilities that would let it write a
# user's files: root works in its own).
as() {
  local who=$1
  shift
  if [[ $who == user ]]; then as_user "$@"; else as_root "$@"; fi
}
home_of() { if [[ $1 == user ]]; then echo "$home"; else echo "$root_home"; fi; }
# do_as WHO ARGS...: `vigil do ARGS` as WHO, in its home's project.
do_as() {
  local who=$1
  shift
  (cd "$(home_of "$who")/project" && as "$who" "$tmp/vigil" do "$@")
}
failure_context() { ls -la "/tmp/vigil-$uid" 2>&1; }

# serve_unix SOCKET AS...: a daemon (run by AS...) that counts its
# connections in SOCKET.reached.
serve_unix() {
  local sock=$1
  shift
  "$@" python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o600)
s.listen(4)
while True:
    c, _ = s.accept()
    open(sys.argv[1] + ".reached", "a").write("x")
    c.close()' "$sock" &
  daemons+=($!)
  for _ in $(seq 50); do [[ -S $sock ]] && break; sleep 0.1; done
}

# --- a developer's home, the user's and root's -----------------------------------

mkdir -m 0700 "$root_home" || exit 1
stores=(.ssh/id_ed25519 .aws/credentials .git-credentials .netrc .pgpass .docker/config.json
  .config/gh/hosts.yml .kube/config .bash_history)
for who in user root; do
  h=$(home_of "$who")
  as "$who" git init -q "$h/project"
  for store in "${stores[@]}" notes/private.txt; do
    as "$who" mkdir -p "$(dirname "$h/$store")"
    as "$who" sh -c "echo secret-in-$store > '$h/$store'"
  done
  # A daemon of its own under the home (colima's docker.sock).
  as "$who" mkdir -p "$h/.colima/default"
  serve_unix "$h/.colima/default/docker.sock" as "$who"
  as "$who" tee "$h/project/bombs.py" >/dev/null <<'EOF'
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
done
# A root-only daemon under /var/lib (where Incus keeps its socket).
var_sock=$var_sock_dir/unix.socket
serve_unix "$var_sock" as_root

connect_to="import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print('connected')
except OSError as e:
    print('refused', e.errno)"
limits_policy='{"extends": "agent", "defaultLimits": {"pids": 32, "memoryBytes": 268435456}}'

# fork_bomb WHO: how far bombs.py forks under the limits, as WHO (its
# standard error for expect to show when it fails).
fork_bomb() {
  do_as "$1" --policy "$limits_policy" -- python3 bombs.py fork |
    sed -E 's/^forked ([0-9]|[12][0-9]|3[01])$/forked fewer than 32/'
}

# denied_in SUMMARY PATTERN: how many of --summary's refusals match PATTERN.
denied_in() { grep ' = deny ' "$1" | grep -cE "$2"; }

# --- each class, as the user and as root ----------------------------------------

do_classes() {
  local who=$1 h project home_sock
  h=$(home_of "$who")
  project=$h/project
  home_sock=$h/.colima/default/docker.sock

  # Secrets: each store reads as absent, and each attempt is a refusal.
  do_as "$who" --summary --hide "$h/notes/private.txt" -- sh -c '
    for f in "$@"; do cat "$f" 2>/dev/null; done
    ls -A ~ | grep -xE "\.ssh|\.aws|\.netrc|notes" | tr "\n" " "; echo' \
    _ "${stores[@]/#/$h/}" "$h/notes/private.txt" /etc/shadow >"$tmp/found" 2>"$tmp/summary"
  expect "$who: no credential store, --hide path or /etc/shadow reads" "notes " cat "$tmp/found"
  expect "... each attempt is a refusal in --summary" "$((${#stores[@]} + 2))" \
    denied_in "$tmp/summary" "($(IFS='|'; echo "${stores[*]//./\\.}")|notes/private\.txt|/etc/shadow)\""

  expect "$who: --show takes one back, read-only" "secret-in-.netrc
read-only" do_as "$who" --show "$h/.netrc" -- sh -c \
    'cat ~/.netrc; (echo x >> ~/.netrc) 2>/dev/null || echo read-only'

  # Stores replaced (git's credential store renames a lock file over its
  # file) or created (`aws configure` in another terminal) while it runs.
  as "$who" rm -rf "$h/.aws"
  do_as "$who" -- sh -c 'while [ ! -e go ]; do sleep 0.1; done
    cat ~/.git-credentials ~/.aws/credentials 2>/dev/null; echo looked' >"$tmp/looked" 2>/dev/null &
  local looker=$!
  sleep 1
  as "$who" sh -c "echo new-secret > $h/.git-credentials.lock &&
    mv $h/.git-credentials.lock $h/.git-credentials &&
    mkdir -p $h/.aws && echo aws-secret > $h/.aws/credentials && touch $project/go"
  wait "$looker"
  expect "$who: a store replaced or created during the run stays hidden" "looked" cat "$tmp/looked"
  rm -f "$project/go"

  # What the host runs later, from the writable working directory.
  local config_before
  config_before=$(md5sum <"$project/.git/config")
  do_as "$who" --summary -- sh -c '
    echo "echo planted" > .git/hooks/post-checkout
    echo "[core] fsmonitor = planted" >> .git/config
    echo "echo planted" > .envrc
    echo ok > fine.txt' >/dev/null 2>"$tmp/summary"
  expect "$who: .git/hooks, .git/config and .envrc stay the user's; other files are written" \
    "no hook, config unchanged, no .envrc, fine.txt ok" sh -c "
    h=hook; [ -e '$project/.git/hooks/post-checkout' ] || h='no hook'
    c='config changed'; [ \"\$(md5sum <'$project/.git/config')\" = '$config_before' ] && c='config unchanged'
    e=.envrc; [ -e '$project/.envrc' ] || e='no .envrc'
    echo \"\$h, \$c, \$e, fine.txt \$(cat '$project/fine.txt')\""
  expect "... each refusal in --summary" "3" denied_in "$tmp/summary" "post-checkout|\.git/config|\.envrc"

  # Daemons: the host's sockets are refused unless --allow-socket names one.
  do_as "$who" --summary -- python3 -c "$connect_to" "$home_sock" >"$tmp/out" 2>"$tmp/summary"
  expect "$who: a daemon's socket under the home is refused" "refused 13" cat "$tmp/out"
  expect "... a refusal in --summary" "1" denied_in "$tmp/summary" "connect.*docker\.sock"
  do_as "$who" --summary -- python3 -c "$connect_to" "$var_sock" >"$tmp/out" 2>"$tmp/summary"
  expect "$who: a root-only daemon's socket under /var/lib is refused" "refused 13" cat "$tmp/out"
  expect "... a refusal in --summary" "1" denied_in "$tmp/summary" "connect.*unix\.socket"
  expect "$who: --allow-socket names one it may reach" "connected" \
    do_as "$who" --allow-socket "$home_sock" -- python3 -c "$connect_to" "$home_sock"
  expect "... once" "x" cat "$home_sock.reached"

  # Limits: a fork bomb stops at the pids limit, a memory bomb is ended
  # at the memory limit, and do says why in one line.
  expect "$who: a fork bomb stops at the pids limit" "forked fewer than 32" fork_bomb "$who"
  expect_rc "$who: a memory bomb is ended at the memory limit (137)" 137 \
    do_as "$who" --policy "$limits_policy" -- python3 bombs.py memory
  cp "$tmp/stderr" "$tmp/ended"  # expect's own stderr goes there next
  expect "... and do says why in one line" "1" grep -c "^vigil do: ended: .*memory limit" "$tmp/ended"
}

do_classes user
do_classes root

# --- what only the user's sandbox has ------------------------------------------

project=$home/project

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
expect "user: the working directory is writable, the home is not, ~/.ssh is absent, nothing connects" \
  "write cwd done
write home refused 13
ssh absent
connect refused 101
uid $uid" do_as user --audit "$home/do.jsonl" -- python3 probe.py
expect "... what it wrote in the working directory is the user's" "42 $user" \
  sh -c "echo \$(cat '$project/result.txt') \$(stat -c %U '$project/result.txt')"
expect_rc "... nothing was planted in the home" 2 ls "$home/planted"
expect "... its audit shows the refusals" "openat $home/planted deny
newfstatat $home/.ssh deny
connect 192.0.2.1:443 deny" python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("decision") == "deny":
        a = r["args"]
        print(r["syscall"], a.get("path") or a.get("address"), r["decision"])' "$home/do.jsonl"
expect "... and it left no state behind" "" as_user ls -A "/tmp/vigil-$uid/.do"
expect_rc "do returns the command's exit status" 7 do_as user -- sh -c 'exit 7'

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
expect "user: unix IPC inside the sandbox, connects and sends made by the sentry" "over unix
and a datagram" do_as user --audit "$home/ipc.jsonl" -- python3 unix_ipc.py
expect "... decided and audited" "connect sendto" python3 -c '
import json, sys
seen = {json.loads(l)["syscall"] for l in open(sys.argv[1])}
print(*sorted(seen & {"connect", "sendto"}))' "$home/ipc.jsonl"

# Ctrl-C without a terminal: the client's SIGINT ends even a command that,
# as pid 1 of its namespace, ignores it (TERM, then KILL 2 s later).
do_as user -- sleep 1000 </dev/null >/dev/null 2>&1 &
do_pid=$!
for _ in $(seq 100); do pgrep -u "$user" -x sleep >/dev/null && break; sleep 0.1; done
pkill -INT -u "$user" -x vigil
wait "$do_pid"
rc=$?
if ((rc == 137)); then ok "Ctrl-C ends do's command"; else not_ok "Ctrl-C ends do's command" "exit $rc"; fi

# Limits without a cgroup: where the host gives a user none, processes are
# bounded by RLIMIT_NPROC in the sandbox's own user namespace (the user's
# other processes do not count), memory by the supervisor, which ends the
# sandbox past it, for one process or many.
if as_user sh -c 'test -w /sys/fs/cgroup/cgroup.subtree_control' 2>/dev/null; then
  ok "# skip limits without a cgroup: this user may make cgroups here (a delegated cgroup2)"
else
  expect_rc "user without a cgroup: memory spread over four processes is ended (137)" 137 \
    do_as user --policy "$limits_policy" --audit "$home/bomb.jsonl" -- python3 bombs.py memory-many
  expect "... audited as memory-limit" "memory-limit" python3 -c '
import json, sys
print(*sorted({json.loads(l).get("event", "") for l in open(sys.argv[1])} & {"memory-limit"}))' \
    "$home/bomb.jsonl"
fi
expect_rc "do --timeout ends the command (137)" 137 do_as user --timeout 1s -- sleep 30
cp "$tmp/stderr" "$tmp/ended"
expect "... and says so in one line" "1" \
  grep -c "^vigil do: ended: it ran past its timeout (1000 ms)" "$tmp/ended"

report
