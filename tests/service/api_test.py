#!/usr/bin/python3
"""`vigil serve` through its real HTTP API, with the project's Python client
and with raw HTTP: state across run_code calls, streaming order, timeouts,
lifetimes, files, bad input, many sandboxes at once, restarts.

usage: api_test.py VIGIL CLIENT_DIR   (root; exits 77 otherwise)

Each service runs on a state root of its own under a private directory;
after each test, no container of the test's is left but the warm pool's,
and no bundle directory but theirs.
"""

import http.client
import json
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

VIGIL = os.path.realpath(sys.argv[1]) if len(sys.argv) > 2 else None
if len(sys.argv) > 2:
    sys.path.insert(0, sys.argv[2])
    del sys.argv[1:3]
from vigil_sandbox import Sandbox, SandboxError  # noqa: E402

TEMPLATES = {
    "templates": {
        "python": {"pool": 2, "lifetime": "2m", "maxLifetime": "10m", "idlePause": "1s"},
        "nopool": {"pool": 0, "lifetime": "1m"},
    }
}
MAX_UPLOAD = 1 << 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """One `vigil serve` on a state root of its own."""

    def __init__(self, tmp, name="svc"):
        self.root = os.path.join(tmp, name, "root")
        self.socket = os.path.join(tmp, name, "serve.sock")
        self.port = free_port()
        self.token = secrets.token_hex(16)
        os.makedirs(os.path.dirname(self.root), exist_ok=True)
        self.token_file = os.path.join(tmp, name, "token")
        with open(self.token_file, "w") as f:
            f.write(self.token + "\n")
        self.config = os.path.join(tmp, name, "templates.json")
        with open(self.config, "w") as f:
            json.dump(TEMPLATES, f)
        self.log = open(os.path.join(tmp, name, "serve.log"), "ab")
        self.process = None

    def start(self):
        if os.path.exists(self.socket):
            os.unlink(self.socket)  # an earlier run's, killed
        self.process = subprocess.Popen(
            [VIGIL, "--root", self.root, "serve", "--socket", self.socket, "--listen",
             "127.0.0.1:%d" % self.port, "--token-file", self.token_file, "--config", self.config,
             "--max-upload", str(MAX_UPLOAD)],
            stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 20
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("vigil serve did not start: %s" % self.read_log())
            time.sleep(0.05)
        # The pool filled: requests are served from it from here on.
        self.wait_for(lambda: len(self.bundles()) >= 2, "the warm pool to fill")

    def stop(self, sig=signal.SIGTERM):
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(60)
        self.log.flush()

    def read_log(self):
        with open(self.log.name, "rb") as f:
            return f.read().decode("utf-8", "replace")[-2000:]

    def url(self):
        return "unix://" + self.socket

    def sandbox(self, **kwargs):
        return Sandbox(url=self.url(), **kwargs)

    def containers(self):
        out = subprocess.run([VIGIL, "--root", self.root, "list", "-q"], capture_output=True,
                             text=True).stdout
        return set(out.split())

    def bundles(self):
        path = os.path.join(self.root, ".serve", "sandboxes")
        return set(os.listdir(path)) if os.path.isdir(path) else set()

    def live(self):
        return {s["sandboxId"] for s in Sandbox.list(url=self.url())}

    def http(self, method, path, body=None, headers=None, tcp=False):
        """(status, headers, body) of a raw request."""
        if tcp:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        else:
            conn = http.client.HTTPConnection("localhost", timeout=60)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(self.socket)
            conn.sock = sock
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    @staticmethod
    def wait_for(condition, what, seconds=30):
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError("waited %ds for %s" % (seconds, what))
            time.sleep(0.1)


class ApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vigil-serve-test-")
        cls.service = Service(cls.tmp)
        cls.service.start()

    @classmethod
    def tearDownClass(cls):
        cls.service.stop()
        cls.service.log.close()
        left = cls.service.containers()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if left:
            raise AssertionError("containers left after the service stopped: %s" % left)

    def setUp(self):
        self.before = self.service.containers()

    def tearDown(self):
        # Nothing of the test's own is left: only the pool's (which may
        # have been taken and made anew meanwhile).
        svc = self.service
        svc.wait_for(lambda: not svc.live(), "the test's sandboxes to end")
        svc.wait_for(lambda: svc.containers() == svc.bundles(), "containers and bundles to agree")
        self.assertLessEqual(len(svc.containers()), 2, svc.containers())

    def test_variables_persist_between_calls(self):
        with self.service.sandbox() as sandbox:
            self.assertIsNone(sandbox.run_code("x = 41\ndef double(v):\n    return 2 * v").error)
            execution = sandbox.run_code("double(x + 1)")
            self.assertIsNone(execution.error)
            self.assertEqual(execution.text, "84")

    def test_output_streams_in_the_order_written(self):
        code = ("import sys, time, os\n"
                "print('one')\n"
                "print('two', file=sys.stderr)\n"
                "os.system('echo three')\n"
                "print('four')\n"
                "time.sleep(1.5)\n"
                "print('five')\n"
                "'six'")
        seen = []
        started = time.monotonic()
        with self.service.sandbox() as sandbox:
            execution = sandbox.run_code(
                code,
                on_stdout=lambda t: seen.append(("stdout", t, time.monotonic() - started)),
                on_stderr=lambda t: seen.append(("stderr", t, time.monotonic() - started)))
        self.assertEqual([(kind, text) for kind, text, _ in seen],
                         [("stdout", "one\n"), ("stderr", "two\n"), ("stdout", "three\n"),
                          ("stdout", "four\n"), ("stdout", "five\n")])
        self.assertEqual(execution.text, "'six'")
        # Streamed: what came before the sleep arrived before it ended.
        self.assertLess(seen[3][2] + 1.0, seen[4][2], seen)

    def test_stream_is_chunked_json_lines(self):
        with self.service.sandbox() as sandbox:
            status, headers, body = self.service.http(
                "POST", "/sandboxes/%s/code" % sandbox.sandbox_id,
                json.dumps({"code": "print('hi')\n1/0"}))
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("Content-Type"), "application/x-ndjson")
        self.assertEqual(headers.get("Transfer-Encoding"), "chunked")
        lines = [json.loads(line) for line in body.decode().splitlines()]
        self.assertEqual([line["type"] for line in lines], ["stdout", "error", "end"])
        self.assertEqual(lines[1]["name"], "ZeroDivisionError")
        self.assertIn("1/0", lines[1]["traceback"])
        self.assertNotIn("kernel", lines[1]["traceback"])

    def test_call_timeout_interrupts_the_code_and_keeps_the_sandbox(self):
        with self.service.sandbox() as sandbox:
            sandbox.run_code("kept = 'yes'")
            started = time.monotonic()
            execution = sandbox.run_code("import time\ntime.sleep(60)", timeout=1)
            self.assertLess(time.monotonic() - started, 20)
            self.assertEqual(execution.error.name, "TimeoutError")
            self.assertEqual(sandbox.run_code("kept").text, "'yes'")
            result = sandbox.commands.run("sleep 60", timeout=1)
            self.assertEqual(result.error.name, "TimeoutError")
            self.assertEqual(sandbox.run_code("kept").text, "'yes'")
            # A timeout in the middle of a flood of output: every reply
            # whole, the sandbox in step.
            flood = sandbox.run_code("while True:\n    print('x' * 5000)", timeout=1)
            self.assertEqual(flood.error.name, "TimeoutError")
            self.assertTrue(all(set(t) <= {"x", "\n"} for t in flood.logs.stdout))
            self.assertEqual(sandbox.run_code("kept").text, "'yes'")

    def test_code_that_ignores_its_timeout_loses_its_sandbox(self):
        with self.service.sandbox() as sandbox:
            execution = sandbox.run_code(
                "import signal, time\n"
                "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                "time.sleep(60)", timeout=1)
            self.assertEqual(execution.error.name, "SandboxError")
            with self.assertRaises(SandboxError) as raised:
                sandbox.run_code("1")
            self.assertEqual(raised.exception.status, 404)

    def test_code_that_writes_to_the_service_loses_only_its_own_sandbox(self):
        # The code runs in the kernel's process and may write anything to
        # its replies: an endless line, a file of a claimed huge size.
        floods = [
            "import sys\nsys.modules['__main__']._replies.write(b'x' * (17 << 20))\nimport time\n"
            "time.sleep(30)",
            "import sys\nsys.modules['__main__']._replies.write("
            "b'{\"type\": \"file\", \"size\": 99999999999}\\n')\nimport time\ntime.sleep(30)",
        ]
        with self.service.sandbox() as bystander:
            bystander.run_code("alive = True")
            for code in floods:
                with self.subTest(code=code[:60]):
                    sandbox = self.service.sandbox()
                    execution = sandbox.run_code(code, timeout=20)
                    self.assertEqual(execution.error.name, "SandboxError")
                    with self.assertRaises(SandboxError) as raised:
                        sandbox.run_code("1")
                    self.assertEqual(raised.exception.status, 404)
            self.assertEqual(bystander.run_code("alive").text, "True")

    def test_a_kernel_that_dies_between_calls_takes_its_sandbox(self):
        sandbox = self.service.sandbox()
        sandbox.run_code("import os, threading\n"
                         "threading.Timer(0.3, lambda: os._exit(3)).start()")
        self.service.wait_for(lambda: sandbox.sandbox_id not in self.service.containers(),
                              "the dead kernel's sandbox to be ended")
        with self.assertRaises(SandboxError) as raised:
            sandbox.run_code("1")
        self.assertEqual(raised.exception.status, 404)

    def test_lifetime_ends_the_sandbox_and_keeps_its_audit(self):
        sandbox = self.service.sandbox(timeout=2)
        sandbox.run_code("open('/workspace/note', 'w').write('x')")
        self.assertIn(sandbox.sandbox_id, self.service.containers())
        self.service.wait_for(lambda: sandbox.sandbox_id not in self.service.containers(),
                              "the sandbox to end at its lifetime")
        with self.assertRaises(SandboxError) as raised:
            sandbox.run_code("1")
        self.assertEqual(raised.exception.status, 404)
        self.assertNotIn(sandbox.sandbox_id, self.service.bundles())
        audit = sandbox.audit()
        self.assertTrue(any(r.get("args", {}).get("resolved") == "/workspace/note" for r in audit),
                        audit[-5:])

    def test_set_timeout_extends_the_lifetime(self):
        sandbox = self.service.sandbox(timeout=2)
        sandbox.set_timeout(60)
        time.sleep(3)
        self.assertEqual(sandbox.run_code("1").text, "1")
        sandbox.kill()

    def test_files_round_trip(self):
        data = bytes(range(256)) * 1000
        with self.service.sandbox() as sandbox:
            sandbox.files.write("/workspace/deep/dir/blob.bin", data)
            self.assertEqual(sandbox.files.read("/workspace/deep/dir/blob.bin", format="bytes"),
                             data)
            sandbox.files.write("/tmp/text.txt", "héllo")
            self.assertEqual(sandbox.run_code("open('/tmp/text.txt').read()").text, "'héllo'")
            entries = sandbox.files.list("/workspace/deep/dir")
            self.assertEqual([(e.name, e.type, e.size) for e in entries],
                             [("blob.bin", "file", len(data))])
            with self.assertRaises(SandboxError) as raised:
                sandbox.files.read("/workspace/missing")
            self.assertEqual(raised.exception.status, 404)
            # The sandbox's rights, not the service's: the host's files
            # are read-only to it.
            with self.assertRaises(SandboxError) as raised:
                sandbox.files.write("/etc/vigil-serve-test", "x")
            self.assertEqual(raised.exception.status, 403)
            self.assertFalse(os.path.exists("/etc/vigil-serve-test"))

    def test_commands_stream_and_exit_status(self):
        out = []
        with self.service.sandbox() as sandbox:
            result = sandbox.commands.run("echo out; echo err >&2; pwd; exit 7",
                                          on_stdout=out.append)
        self.assertEqual(result.exit_code, 7)
        self.assertEqual(result.stdout, "out\n/workspace\n")
        self.assertEqual(result.stderr, "err\n")
        self.assertEqual("".join(out), result.stdout)

    def test_env_and_metadata(self):
        with self.service.sandbox(env={"GREETING": "hi"}, metadata={"user": "u1"}) as sandbox:
            self.assertEqual(sandbox.run_code("import os\nos.environ['GREETING']").text, "'hi'")
            self.assertEqual(sandbox.commands.run("echo $GREETING").stdout, "hi\n")
            self.assertEqual(sandbox.get_info()["metadata"], {"user": "u1"})

    def test_idle_sandbox_pauses_and_resumes_on_the_next_call(self):
        with self.service.sandbox() as sandbox:
            sandbox.run_code("n = 5")

            def state():
                out = subprocess.run([VIGIL, "--root", self.service.root, "state",
                                      sandbox.sandbox_id], capture_output=True, text=True)
                return json.loads(out.stdout)["status"] if out.returncode == 0 else None

            self.service.wait_for(lambda: state() == "paused", "the idle sandbox to pause")
            self.assertEqual(sandbox.run_code("n * 2").text, "10")
            self.assertEqual(state(), "running")

    def test_bad_requests_get_one_clear_error_and_leave_nothing(self):
        svc = self.service
        svc.wait_for(lambda: len(svc.containers()) == len(svc.bundles()) == 2, "a full pool")
        before = svc.containers()
        cases = [
            ("POST", "/sandboxes", b'{"template": "nope"}', 404, "no template"),
            ("POST", "/sandboxes", b'{"template": ', 400, "malformed JSON"),
            ("POST", "/sandboxes", b'[1]', 400, "must be a JSON object"),
            ("POST", "/sandboxes", b'{"timeout": "soon"}', 400, "timeout"),
            ("POST", "/sandboxes", b'{"timeout": 99999}', 400, "timeout"),
            ("POST", "/sandboxes", b'{"env": {"A": 1}}', 400, "env.A"),
            ("POST", "/sandboxes", b'{"env": {"A=B": "c"}}', 400, "is not a variable's name"),
            ("GET", "/sandboxes/sb-0000000000000000", None, 404, "no sandbox"),
            ("POST", "/sandboxes/sb-0000000000000000/code", b'{"code": "1"}', 404, "no sandbox"),
            ("GET", "/sandboxes/../../etc/passwd/audit", None, 404, ""),
            ("GET", "/nowhere", None, 404, "no path"),
        ]
        for method, path, body, status, words in cases:
            with self.subTest(path=path, body=body):
                got, _, answer = svc.http(method, path, body)
                self.assertEqual(got, status, answer)
                self.assertIn(words, json.loads(answer)["error"])
        self.assertEqual(svc.containers(), before)
        self.assertEqual(svc.bundles(), before)
        with svc.sandbox() as sandbox:
            path = "/sandboxes/%s" % sandbox.sandbox_id
            got, _, answer = svc.http("POST", path + "/code", b'{"code": 5}')
            self.assertEqual((got, json.loads(answer)["error"]),
                             (400, "code: expected string, got number 5"))
            got, _, answer = svc.http("GET", path + "/files?path=relative")
            self.assertEqual(got, 400, answer)
            # An upload over the limit: refused whole, the sandbox untouched.
            huge = b"x" * (MAX_UPLOAD + 4096)
            got, _, answer = svc.http("PUT", path + "/files?path=/workspace/huge", huge)
            self.assertEqual(got, 413, answer)
            self.assertIn("limit", json.loads(answer)["error"])
            self.assertEqual(sandbox.run_code("import os\nos.path.exists('/workspace/huge')").text,
                             "False")

    def test_tcp_needs_the_token(self):
        svc = self.service
        body = b'{}'
        for headers in ({}, {"Authorization": "Bearer wrong"},
                        {"Authorization": "Bearer " + svc.token + "x"},
                        {"Authorization": "Basic " + svc.token}):
            with self.subTest(headers=headers):
                got, _, answer = svc.http("POST", "/sandboxes", body, headers, tcp=True)
                self.assertEqual(got, 401, answer)
                self.assertIn("token", json.loads(answer)["error"])
        with Sandbox(url="http://127.0.0.1:%d" % svc.port, token=svc.token) as sandbox:
            self.assertEqual(sandbox.run_code("6 * 7").text, "42")

    def test_fifty_sandboxes_at_once(self):
        results = {}
        errors = []

        def one(i):
            try:
                with self.service.sandbox(timeout=300) as sandbox:
                    sandbox.run_code("value = %d" % i)
                    results[i] = (sandbox.sandbox_id, sandbox.run_code("value * 2").text)
            except Exception as e:  # reported below
                errors.append("%d: %r" % (i, e))

        threads = [threading.Thread(target=one, args=(i,)) for i in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
        self.assertEqual(errors, [])
        self.assertEqual({i: text for i, (_, text) in results.items()},
                         {i: str(2 * i) for i in range(50)})
        self.assertEqual(len({sid for sid, _ in results.values()}), 50)


class RestartTest(unittest.TestCase):
    def test_a_restarted_service_leaves_no_sandbox_of_the_last_run(self):
        tmp = tempfile.mkdtemp(prefix="vigil-serve-restart-")
        svc = Service(tmp)
        try:
            svc.start()
            ids = [svc.sandbox().sandbox_id for _ in range(3)]
            pool = svc.bundles() - set(ids)
            kernels = []  # pidfds: a pid may be reused meanwhile
            for sid in ids:
                with open(os.path.join(svc.root, ".serve", "sandboxes", sid, "pid")) as f:
                    kernels.append(os.pidfd_open(int(f.read())))
            svc.stop(signal.SIGKILL)  # no chance to end anything
            self.assertTrue(set(ids) <= svc.containers())
            svc.start()
            gone = set(ids) | pool
            self.assertEqual(svc.containers() & gone, set())
            self.assertEqual(svc.bundles() & gone, set())
            poller = select.poll()
            for pidfd in kernels:
                poller.register(pidfd, select.POLLIN)
            self.assertEqual(len(poller.poll(0)), len(kernels), "a kernel of the last run lives")
            for pidfd in kernels:
                os.close(pidfd)
            for sid in ids:
                got, _, _ = svc.http("GET", "/sandboxes/" + sid)
                self.assertEqual(got, 404)
            # And serves on.
            with svc.sandbox() as sandbox:
                self.assertEqual(sandbox.run_code("1 + 1").text, "2")
            # A stop (SIGTERM) ends every sandbox, the pool's too.
            svc.sandbox()
            svc.stop()
            self.assertEqual(svc.containers(), set())
            self.assertFalse(os.path.exists(svc.socket))
        finally:
            svc.stop(signal.SIGKILL)
            for cid in svc.containers():
                subprocess.run([VIGIL, "--root", svc.root, "delete", "--force", cid])
            shutil.rmtree(tmp, ignore_errors=True)

    def test_bad_flags_are_refused_with_one_line_and_nothing_made(self):
        tmp = tempfile.mkdtemp(prefix="vigil-serve-flags-")
        try:
            root = os.path.join(tmp, "root")
            bad_config = os.path.join(tmp, "bad.json")
            with open(bad_config, "w") as f:
                f.write('{"templates": {"x": {"pool": "many"}}}')
            for args, words in ((["serve", "extra"], 'unexpected argument "extra"'),
                                (["serve", "--config", bad_config], "templates.x.pool"),
                                (["serve", "--max-upload", "lots"], "--max-upload"),
                                (["serve", "--listen", "127.0.0.1:1"], "needs a token")):
                with self.subTest(args=args):
                    out = subprocess.run([VIGIL, "--root", root] + args, capture_output=True,
                                         text=True, timeout=60)
                    self.assertNotEqual(out.returncode, 0)
                    self.assertIn(words, out.stderr)
                    self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)
                    listed = subprocess.run([VIGIL, "--root", root, "list", "-q"],
                                            capture_output=True, text=True).stdout.split()
                    self.assertEqual(listed, [])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_a_second_service_on_the_same_root_is_refused(self):
        tmp = tempfile.mkdtemp(prefix="vigil-serve-twice-")
        svc = Service(tmp)
        try:
            svc.start()
            second = subprocess.run([VIGIL, "--root", svc.root, "serve", "--socket",
                                     svc.socket + "2"], capture_output=True, text=True, timeout=30)
            self.assertNotEqual(second.returncode, 0)
            self.assertIn("another vigil serve", second.stderr)
            self.assertEqual(len(second.stderr.strip().splitlines()), 1, second.stderr)
            self.assertEqual(len(svc.containers()), 2)
        finally:
            svc.stop()
            shutil.rmtree(tmp, ignore_errors=True)


def host_address():
    """This host's address on its default route (slirp4netns reaches it;
    the host's loopback it does not), or None."""
    out = subprocess.run(["ip", "-4", "route", "get", "1.1.1.1"], capture_output=True,
                         text=True).stdout.split()
    return out[out.index("src") + 1] if "src" in out else None


def accepts(address, port):
    with socket.socket() as s:
        return s.connect_ex((address, port)) == 0


class EgressTest(unittest.TestCase):
    def test_a_template_reaches_its_allow_list_only(self):
        address = host_address()
        if address is None:
            self.skipTest("no default route: no host address slirp4netns can reach")
        tmp = tempfile.mkdtemp(prefix="vigil-serve-egress-")
        servers = []
        try:
            with open(os.path.join(tmp, "index.html"), "w") as f:
                f.write("reached\n")
            ports = [free_port(), free_port()]
            for port in ports:
                servers.append(subprocess.Popen(
                    [sys.executable, "-m", "http.server", str(port), "--bind", "0.0.0.0"],
                    cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            for port in ports:
                Service.wait_for(lambda: accepts(address, port),
                                 "the test's HTTP server on port %d" % port)
            TEMPLATES["templates"]["net"] = {"pool": 0, "egress": ["%s:%d" % (address, ports[0])]}
            svc = Service(tmp)
            svc.start()
            try:
                fetch = ("import urllib.request\n"
                         "urllib.request.urlopen('http://%s:%%d/', timeout=10).read()" % address)
                with svc.sandbox(template="net") as sandbox:
                    reached = sandbox.run_code(fetch % ports[0])
                    self.assertEqual(reached.text, "b'reached\\n'", reached.error)
                    refused = sandbox.run_code(fetch % ports[1]).error
                    self.assertEqual(refused.name, "URLError")
                with svc.sandbox() as sandbox:  # the built-in: no network
                    self.assertEqual(sandbox.run_code(fetch % ports[0]).error.name, "URLError")
            finally:
                svc.stop()
                svc.log.close()
        finally:
            del TEMPLATES["templates"]["net"]
            for server in servers:
                server.kill()
                server.wait()
            shutil.rmtree(tmp, ignore_errors=True)


class TlsTest(unittest.TestCase):
    def test_a_port_off_loopback_needs_tls_and_tls_serves(self):
        tmp = tempfile.mkdtemp(prefix="vigil-serve-tls-")
        try:
            cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                            key, "-out", cert, "-subj", "/CN=localhost", "-days", "1", "-addext",
                            "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
            svc = Service(tmp)
            base = [VIGIL, "--root", svc.root, "serve", "--socket", svc.socket, "--token-file",
                    svc.token_file]
            for extra, words in (
                    (["--listen", "0.0.0.0:%d" % svc.port], "not a loopback address"),
                    (["--listen", "127.0.0.1:%d" % svc.port, "--tls-cert", cert],
                     "--tls-cert and --tls-key go together"),
                    (["--listen", "127.0.0.1:%d" % svc.port, "--tls-cert", cert, "--tls-key",
                      cert], "not a PEM private key")):
                with self.subTest(extra=extra):
                    refused = subprocess.run(base + extra, capture_output=True, text=True,
                                             timeout=60)
                    self.assertNotEqual(refused.returncode, 0)
                    self.assertIn(words, refused.stderr)
                    self.assertEqual(len(refused.stderr.strip().splitlines()), 1, refused.stderr)
                    self.assertFalse(os.path.exists(svc.socket))
            process = subprocess.Popen(base + ["--listen", "127.0.0.1:%d" % svc.port,
                                               "--tls-cert", cert, "--tls-key", key],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                Service.wait_for(lambda: os.path.exists(svc.socket), "the TLS service")
                url = "https://127.0.0.1:%d" % svc.port
                with Sandbox(url=url, token=svc.token, ca_file=cert) as sandbox:
                    self.assertEqual(sandbox.run_code("6 * 7").text, "42")
                with self.assertRaises(SandboxError):  # not trusted without the authority
                    Sandbox(url=url, token=svc.token)
                with self.assertRaises(SandboxError):  # no plain HTTP on the TLS port
                    Sandbox(url="http://127.0.0.1:%d" % svc.port, token=svc.token)
            finally:
                process.send_signal(signal.SIGTERM)
                process.wait(60)
            self.assertEqual(svc.containers(), set())
        finally:
            svc.log.close()
            shutil.rmtree(tmp, ignore_errors=True)


class UserTest(unittest.TestCase):
    def test_a_user_serves_sandboxes_of_its_own(self):
        # As nobody: a user namespace of the sandbox's (vigil do's mapping),
        # the code running as that user, the socket that user's alone.
        tmp = tempfile.mkdtemp(prefix="vigil-serve-user-")
        os.chmod(tmp, 0o777)
        root = os.path.join(tmp, "root")
        socket_path = os.path.join(tmp, "serve.sock")
        service = subprocess.Popen(
            ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "env", "-i",
             "PATH=/usr/bin:/bin", "HOME=/nonexistent", VIGIL, "--root", root, "serve", "--socket",
             socket_path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            Service.wait_for(lambda: os.path.exists(socket_path), "the user's service")
            st = os.stat(socket_path)
            self.assertEqual((st.st_uid, st.st_mode & 0o777), (65534, 0o600))
            with Sandbox(url="unix://" + socket_path) as sandbox:
                self.assertEqual(sandbox.run_code("import os\nos.getuid()").text, "65534")
                # Masked (an empty file), as vigil do masks it.
                self.assertEqual(sandbox.commands.run("cat /etc/shadow").stdout, "")
        finally:
            service.send_signal(signal.SIGTERM)
            service.wait(60)
            left = subprocess.run([VIGIL, "--root", root, "list", "-q"], capture_output=True,
                                  text=True).stdout.split()
            self.assertEqual(left, [], service.stderr.read())
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if VIGIL is None:
        sys.exit(__doc__)
    if os.geteuid() != 0:
        print("skip: the service runs containers (root)")
        sys.exit(77)
    unittest.main(verbosity=2)
