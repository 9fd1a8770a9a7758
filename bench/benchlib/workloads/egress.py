"""Workload: what egress by name costs a workload (docs/policy.md, "Egress
by name"), in a network namespace of the bench's own joined by path, with
a nameserver (dnsmasq) and a TCP server in another namespace behind a veth
pair; nothing leaves the machine. The probe's network operations
(bench/syscalls/network_ops.h): `dns_query`, an A query for api.bench and
its answer; `tcp_connect`, socket + connect to api.bench's address + close.
Under runc and plain vigil the query goes to the nameserver itself and the
connect to the kernel; under vigil+allow-list (`agent` allowing api.bench
on the server's port) the query is answered through the sandbox's own
resolver, and each connect is decided by the sentry against what it
learned."""

import json
import os
import subprocess

from .. import bundles, runtimes
from .syscalls import parse

NAME = "egress"
SERVER = "10.78.0.2"
PORT = 8080
ALLOW = json.dumps({"extends": "agent", "network": {
    "allow": [{"host": "api.bench", "ports": [PORT]}]}})
# Accepts and closes, for as long as the bench runs.
ACCEPTOR = ("import socket\n"
            "s = socket.socket()\n"
            "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
            f"s.bind(('0.0.0.0', {PORT}))\n"
            "s.listen(1024)\n"
            "while True:\n"
            "    s.accept()[0].close()\n")


def sh(*args):
    return subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


class Hosts:
    """The two namespaces, the nameserver and the acceptor."""

    def __init__(self, ctx):
        tag = str(os.getpid())
        self.servers, self.box = f"vb-srv-{tag}", f"vb-box-{tag}"
        self.helpers = []
        hosts = ctx.path("egress-hosts")
        with open(hosts, "w") as f:
            f.write(f"{SERVER} api.bench\n")
        ok = (sh("ip", "netns", "add", self.servers) and sh("ip", "netns", "add", self.box) and
              sh("ip", "link", "add", f"vb-s{tag}", "type", "veth", "peer", "name", f"vb-b{tag}") and
              sh("ip", "link", "set", f"vb-s{tag}", "netns", self.servers) and
              sh("ip", "link", "set", f"vb-b{tag}", "netns", self.box) and
              sh("ip", "-n", self.servers, "addr", "add", f"{SERVER}/24", "dev", f"vb-s{tag}") and
              sh("ip", "-n", self.box, "addr", "add", "10.78.0.1/24", "dev", f"vb-b{tag}"))
        for ns, link in ((self.servers, f"vb-s{tag}"), (self.box, f"vb-b{tag}")):
            ok = ok and sh("ip", "-n", ns, "link", "set", "lo", "up")
            ok = ok and sh("ip", "-n", ns, "link", "set", link, "up")
        self.ok = ok
        if not ok:
            return
        self.helpers.append(subprocess.Popen(
            ["ip", "netns", "exec", self.servers, "dnsmasq", "--keep-in-foreground",
             "--no-resolv", "--no-hosts", f"--addn-hosts={hosts}", f"--listen-address={SERVER}",
             "--bind-interfaces", "--local-ttl=60", "--cache-size=0", "--user=root",
             f"--pid-file={ctx.path('egress-dnsmasq.pid')}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        self.helpers.append(subprocess.Popen(
            ["ip", "netns", "exec", self.servers, "/usr/bin/python3", "-c", ACCEPTOR],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def close(self):
        for helper in self.helpers:
            helper.kill()
            helper.wait()
        sh("ip", "netns", "del", self.servers)
        sh("ip", "netns", "del", self.box)


def run(ctx):
    if not all(os.path.exists(p) for p in ("/usr/sbin/dnsmasq", "/usr/bin/python3")):
        ctx.problem(NAME, "driver", "needs dnsmasq (dnsmasq-base) and python3")
        return
    hosts = Hosts(ctx)
    try:
        if not hosts.ok:
            ctx.problem(NAME, "driver", "could not make the network namespaces")
            return
        measure(ctx, hosts)
    finally:
        hosts.close()


def measure(ctx, hosts):
    ms = "50" if ctx.quick else "200"
    rounds = ctx.rounds(2, 5)
    args = [bundles.PROBE_IN_CONTAINER, "ops", "--ops", "dns_query,tcp_connect", "--ms", ms]
    bundle = bundles.Bundle(ctx.path("bundles", NAME), "busybox", ctx.busybox, ctx.probe)
    config = bundles.config(args, env=["BENCH_NAME=api.bench", f"BENCH_PORT={PORT}"])
    for ns in config["linux"]["namespaces"]:
        if ns["type"] == "network":
            ns["path"] = f"/run/netns/{hosts.box}"
    with open(os.path.join(bundle.path, "rootfs", "etc", "resolv.conf"), "w") as f:
        f.write(f"nameserver {SERVER}\n")
    bundle.write_config(config)
    vigil = next((rt for rt in ctx.runtimes if rt.name == "vigil"), None)
    compared = [rt for rt in ctx.runtimes if rt.name in ("runc", "vigil")]
    if vigil:
        compared.append(runtimes.Runtime("vigil+allow-list", vigil.binary, vigil.root,
                                         flags=["--policy", ALLOW], version=vigil.version))
    for _, rt in ctx.interleaved(rounds, compared):
        cid = ctx.new_id("eg")
        out = rt.run(bundle.path, cid, timeout=300)
        if out.ok:
            rt.ids.discard(cid)
        else:
            rt.delete(cid, force=True)
        results = parse(out.out)
        if not out.ok or len(results) < 2:
            ctx.problem(NAME, rt.name, "probe failed: " + out.describe())
            continue
        ctx.add(NAME, "dns_query", rt.name, results["dns_query"], "ns/call",
                "an A query for an allowed name and its answer (connected UDP)")
        ctx.add(NAME, "tcp_connect", rt.name, results["tcp_connect"], "ns/call",
                "socket + connect to the allowed name's address + close")
    ctx.note(NAME, f"{rounds} runs of the probe per runtime, each op timed for {ms} ms; "
                   "vigil+allow-list is vigil under `agent` allowing api.bench, whose names "
                   "its own resolver answers.")
