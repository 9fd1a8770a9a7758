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

report
