#!/usr/bin/env bash
# Egress by name with the clients users run (docs/policy.md, "Egress by
# name"), each in a bundle under `agent` allowing api.test, against the
# test hosts of egress/test_hosts.sh: Python's getaddrinfo (over UDP and
# TCP) and urllib,
# curl (through a CNAME too), wget, pip from a local index, git over HTTPS,
# Node's fetch and its c-ares resolver. The attacks on the same model are
# tests/security/egress_names.sh.
#
# usage: egress.sh RUNTIME   (vigil's binary)
# Prints "ok - ..." / "not ok - ..." per case and "N passed, M failed"; exits
# 77 (skipped) when not root or a tool is missing.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/clients/lib.sh
source "$here/lib.sh"
take_runtime_arg "$@"
# shellcheck source=tests/clients/egress/test_hosts.sh
source "$here/egress/test_hosts.sh"

expect "python getaddrinfo resolves an allowed name" "10.77.0.2" \
  in_box gai python3 -c \
  'import socket; print(socket.getaddrinfo("api.test", 8080, socket.AF_INET)[0][4][0])'
# glibc over TCP (RES_OPTIONS=use-vc, as a resolv.conf's options line).
expect "getaddrinfo over TCP" "10.77.0.2" \
  in_box gai-tcp env RES_OPTIONS=use-vc python3 -c \
  'import socket; print(socket.getaddrinfo("api.test", 8080, socket.AF_INET)[0][4][0])'
expect "python urllib reaches an allowed name" "hello from the test host" \
  in_box urllib python3 -c \
  'import urllib.request; print(urllib.request.urlopen("http://api.test:8080/hello").read().decode().strip())'
expect "curl over HTTPS" "hello from the test host" \
  in_box curl curl -sS --cacert /etc/test-ca.pem https://api.test:8443/hello
# edge.test is a CNAME for api.test: the chain's address is edge.test's.
expect "curl to an allowed name answered through a CNAME" "hello from the test host" \
  in_box curl-cname curl -sS --cacert /etc/test-ca.pem https://edge.test:8443/hello
expect "curl to a name a wildcard entry allows" "hello from the test host" \
  in_box curl-wildcard curl -sS http://pkg.mirror.test:8080/hello
expect "wget" "hello from the test host" \
  in_box wget wget -q -O - http://api.test:8080/hello
expect "pip installs from a local index" "installed through the allow-list" \
  in_box pip sh -c 'pip install -q --no-cache-dir --disable-pip-version-check --cert /etc/test-ca.pem \
    --index-url https://api.test:8443/simple --target /tmp/site vigiltest >/dev/null 2>&1 &&
    PYTHONPATH=/tmp/site python3 -c "import vigiltest; print(vigiltest.GREETING)"'
expect "git clones over HTTPS" "reached" \
  in_box git sh -c 'GIT_SSL_CAINFO=/etc/test-ca.pem git clone -q https://api.test:8443/repo.git /tmp/r &&
    git -C /tmp/r log -1 --format=%s'
expect "node fetch" "hello from the test host" \
  in_box node node -e \
  'fetch("http://api.test:8080/hello").then(r => r.text()).then(t => console.log(t.trim()))'
# Node's own resolver (c-ares, as dns.resolve4 uses it), not getaddrinfo.
expect "node dns.resolve4 (c-ares)" "10.77.0.2" \
  in_box node-cares node -e \
  'require("dns").promises.resolve4("api.test").then(a => console.log(a.join(",")))'

# The same clients under `vigil do --net allow=`: a network namespace of
# its own, the host's network through slirp4netns, its names answered by
# the sandbox's resolver.
expect "vigil do: python urllib" "hello from the test host" \
  in_do python3 -c \
  'import urllib.request; print(urllib.request.urlopen("http://api.test:8080/hello").read().decode().strip())'
expect "vigil do: curl over HTTPS" "hello from the test host" \
  in_do curl -sS --cacert ca.pem https://api.test:8443/hello
expect "vigil do: curl to a name a wildcard entry allows" "hello from the test host" \
  in_do curl -sS http://pkg.mirror.test:8080/hello
expect "vigil do: wget" "hello from the test host" \
  in_do wget -q -O - http://api.test:8080/hello
expect "vigil do: pip installs from a local index" "installed through the allow-list" \
  in_do sh -c 'pip install -q --no-cache-dir --disable-pip-version-check --cert ca.pem \
    --index-url https://api.test:8443/simple --target site vigiltest >/dev/null 2>&1 &&
    PYTHONPATH=site python3 -c "import vigiltest; print(vigiltest.GREETING)"'
expect "vigil do: git clones over HTTPS" "reached" \
  in_do sh -c 'GIT_SSL_CAINFO=ca.pem git clone -q https://api.test:8443/repo.git r &&
    git -C r log -1 --format=%s'
expect "vigil do: node fetch" "hello from the test host" \
  in_do node -e \
  'fetch("http://api.test:8080/hello").then(r => r.text()).then(t => console.log(t.trim()))'

# As a user: slirp4netns opens /dev/net/tun as the user. Where the host
# lets users open it (Debian's udev makes it 0666) the client runs; where
# it does not (a host without udev leaves it 0600, as the CI machine) vigil
# do says so in one line, and leaves nothing behind.
user=vigil-eg-$$
useradd --no-create-home --home-dir "$tmp/home" --shell /bin/sh "$user" || exit 1
trap 'userdel "$user" 2>/dev/null; rm -rf "/tmp/vigil-$(id -u "$user" 2>/dev/null)"; cleanup' EXIT
mkdir -p "$tmp/home"
cp "$runtime" "$tmp/vigil" && chmod 0755 "$tmp" "$tmp/vigil" && chown "$user" "$tmp/home"
as_user_in_box() {
  nsenter --net="/run/netns/$box" unshare -m sh -c \
    'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' sh "$tmp/do-resolv.conf" \
    setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups \
    env -i HOME="$tmp/home" PATH=/usr/bin:/bin sh -c 'cd "$HOME" && exec "$@"' sh "$@" </dev/null
}
if [[ $(stat -c %a /dev/net/tun) == 666 ]]; then
  expect "vigil do as a user: curl" "hello from the test host" \
    as_user_in_box "$tmp/vigil" do --net allow=api.test:8080 -- curl -sS http://api.test:8080/hello
else
  out=$(as_user_in_box "$tmp/vigil" do --net allow=api.test:8080 -- true 2>&1)
  if [[ $out == *"cannot open /dev/net/tun"* && $(wc -l <<<"$out") == 1 ]] &&
    [[ -z $(find "/tmp/vigil-$(id -u "$user")" -mindepth 2 2>/dev/null) ]]; then
    ok "vigil do as a user without /dev/net/tun: one line naming it"
  else
    not_ok "vigil do as a user without /dev/net/tun: one line naming it" "$out"
  fi
fi

report
