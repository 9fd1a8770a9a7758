# The test hosts of the egress-by-name tests (sourced, not run; docs/policy.md
# "Egress by name"): no traffic leaves the machine. Two network namespaces
# joined by a veth pair:
#   servers  10.77.0.2 (api.test, edge.test as a CNAME for it, mirror.test
#            and pkg.mirror.test),
#            10.77.0.3 (other.test), 10.77.0.4 (rotate.test, until
#            rotate_name moves it to 10.77.0.2): a nameserver (dnsmasq, TTLs
#            of 1 s) on 10.77.0.2, web servers on every address (HTTP 8080,
#            HTTPS 8443 with the test's own CA), each request logged;
#   box      10.77.0.1: the sandbox's network namespace (a pod's, joined by
#            path), whose resolv.conf names 10.77.0.2.
# A bundle whose root holds the host's /usr read-only runs under `agent`
# allowing api.test on 8080 and 8443, edge.test on 8443, rotate.test and
# *.mirror.test on 8080: `in_box ID COMMAND...`; `vigil do --net allow=` with
# the same: `in_do COMMAND...`.
#
# The sourcing script has called take_runtime_arg (lib.sh) and sets $here
# to tests/clients. Skips (77) when not root or a tool is missing.

[[ $EUID -eq 0 ]] || skip "needs root for network namespaces"
for tool in ip dnsmasq openssl curl wget git node /usr/bin/python3; do
  command -v "$tool" >/dev/null || skip "$tool not installed"
done
python=/usr/bin/python3  # Debian's, whichever the PATH prefers

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vigil-egress.XXXXXX") || exit 1
servers=vg-srv-$$
box=vg-box-$$
root=$tmp/state
pids=()
cleanup() {
  set +e
  local id
  for id in $("$runtime" --root "$root" list -q 2>/dev/null); do
    "$runtime" --root "$root" delete -f "$id" >/dev/null 2>&1
  done
  ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null
  [[ -f $tmp/dnsmasq.pid ]] && kill "$(cat "$tmp/dnsmasq.pid")" 2>/dev/null
  ip netns del "$servers" 2>/dev/null
  ip netns del "$box" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
failure_context() {
  echo "dnsmasq asked:"
  grep -o 'query\[[A-Z]*\] [^ ]*' "$tmp/dnsmasq.log" 2>/dev/null | tail -5
  echo "audit:"
  tail -5 "$tmp/audit.log" 2>/dev/null
}

# --- the test hosts -----------------------------------------------------------
ip netns add "$servers" && ip netns add "$box" || exit 1
ip link add vg-s$$ type veth peer name vg-b$$ || exit 1
ip link set vg-s$$ netns "$servers"
ip link set vg-b$$ netns "$box"
ip -n "$servers" addr add 10.77.0.2/24 dev vg-s$$
ip -n "$servers" addr add 10.77.0.3/24 dev vg-s$$
ip -n "$servers" addr add 10.77.0.4/24 dev vg-s$$
ip -n "$box" addr add 10.77.0.1/24 dev vg-b$$
for ns in "$servers" "$box"; do
  ip -n "$ns" link set lo up
done
ip -n "$servers" link set vg-s$$ up
ip -n "$box" link set vg-b$$ up

printf '10.77.0.2 api.test pkg.mirror.test mirror.test\n10.77.0.3 other.test\n10.77.0.4 rotate.test\n' \
  >"$tmp/hosts"
ip netns exec "$servers" dnsmasq --no-resolv --no-hosts --addn-hosts="$tmp/hosts" \
  --listen-address=10.77.0.2 --bind-interfaces --local-ttl=1 --cname=edge.test,api.test \
  --log-queries --log-facility="$tmp/dnsmasq.log" --pid-file="$tmp/dnsmasq.pid" --user=root ||
  exit 1

mkdir -p "$tmp/tls" "$tmp/www"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=api.test \
  -addext "subjectAltName=DNS:api.test,DNS:edge.test,DNS:other.test" \
  -keyout "$tmp/tls/key.pem" -out "$tmp/tls/cert.pem" >/dev/null 2>&1 || exit 1
echo "hello from the test host" >"$tmp/www/hello"
"$python" "$here/egress/make_index.py" "$tmp/www" || exit 1
git init -q --bare "$tmp/www/repo.git" &&
  git -C "$tmp/www/repo.git" symbolic-ref HEAD refs/heads/main &&
  git clone -q "$tmp/www/repo.git" "$tmp/work" 2>/dev/null &&
  git -C "$tmp/work" -c user.name=t -c user.email=t@t commit -q --allow-empty -m "reached" &&
  git -C "$tmp/work" push -q origin HEAD:main &&
  git -C "$tmp/www/repo.git" update-server-info || exit 1
ip netns exec "$servers" "$python" "$here/egress/serve.py" 8080 "$tmp/www" "$tmp/requests" &
pids+=($!)
ip netns exec "$servers" "$python" "$here/egress/serve.py" 8443 "$tmp/www" "$tmp/requests" \
  "$tmp/tls" &
pids+=($!)
for _ in $(seq 50); do
  ip netns exec "$box" curl -s -o /dev/null --cacert "$tmp/tls/cert.pem" \
    --resolve api.test:8443:10.77.0.2 https://api.test:8443/hello && break
  sleep 0.1
done

# --- the bundle ---------------------------------------------------------------
# The host's /usr read-only under a root of the test's own (merged /usr:
# /bin, /lib and /lib64 are links into it); the sandbox's resolv.conf, as
# a pod's would, names the test hosts' nameserver.
bundle=$tmp/bundle
rootfs=$bundle/rootfs
mkdir -p "$rootfs"/{usr,etc/ssl,etc/alternatives,tmp,proc,dev,sys,work}
for link in bin sbin lib lib64; do ln -s "usr/$link" "$rootfs/$link"; done
echo "root:x:0:0:root:/tmp:/bin/sh" >"$rootfs/etc/passwd"
echo "root:x:0:" >"$rootfs/etc/group"
echo "127.0.0.1 localhost" >"$rootfs/etc/hosts"
echo "hosts: files dns" >"$rootfs/etc/nsswitch.conf"
echo "nameserver 10.77.0.2" >"$rootfs/etc/resolv.conf"
cp "$tmp/tls/cert.pem" "$rootfs/etc/test-ca.pem"
policy='{"extends": "agent", "network": {"allow": [{"host": "api.test", "ports": [8080, 8443]},
  {"host": "edge.test", "ports": [8443]}, {"host": "rotate.test", "ports": [8080]},
  {"host": "*.mirror.test", "ports": [8080]}]}}'

# in_box ID COMMAND...: runs COMMAND in a container of the bundle, in the
# box's network namespace; its audit log is $tmp/audit.log.
in_box() {
  local id=$1
  shift
  "$python" "$here/egress/bundle.py" "$bundle" "$policy" "/run/netns/$box" "$@" || return 1
  rm -f "$tmp/audit.log"
  "$runtime" --root "$root" --audit "$tmp/audit.log" run --bundle "$bundle" "$id" </dev/null
}
"$runtime" spec --bundle "$bundle" 2>/dev/null || (cd "$bundle" && "$runtime" spec) || exit 1
cp "$bundle/config.json" "$bundle/config.base.json"

# in_do COMMAND...: COMMAND under `vigil do --net allow=` (the same names and
# ports as the bundle's policy) as root, from a working directory holding
# the test's CA (ca.pem), in the box's network namespace and with a
# resolv.conf naming the test hosts' nameserver as the host's.
do_allow="api.test:8080,api.test:8443,edge.test:8443,rotate.test:8080,*.mirror.test:8080"
mkdir -p "$tmp/do"
cp "$tmp/tls/cert.pem" "$tmp/do/ca.pem"
echo "nameserver 10.77.0.2" >"$tmp/do-resolv.conf"
in_do() {
  (cd "$tmp/do" && nsenter --net="/run/netns/$box" unshare -m sh -c \
    'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' sh "$tmp/do-resolv.conf" \
    "$runtime" do --net "allow=$do_allow" -- "$@" </dev/null)
}

# rotate_name: rotate.test moves from 10.77.0.4 to 10.77.0.2 (dnsmasq reads
# its hosts files again on SIGHUP).
rotate_name() {
  sed -i 's/^10.77.0.4 rotate.test$/10.77.0.2 rotate.test/' "$tmp/hosts"
  kill -HUP "$(cat "$tmp/dnsmasq.pid")"
}
