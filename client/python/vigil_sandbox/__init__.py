"""A client of `vigil serve`, with the standard library only.

    from vigil_sandbox import Sandbox

    with Sandbox(template="python") as sandbox:
        sandbox.run_code("x = 41")
        print(sandbox.run_code("x + 1").text)          # 42
        print(sandbox.commands.run("echo hi").stdout)  # hi
        sandbox.files.write("/workspace/data.txt", "hello")
        print(sandbox.files.read("/workspace/data.txt"))

The service is found at `url` or $VIGIL_SERVE_URL: "unix:///PATH" (the
default: /run/vigil/serve.sock as root, $XDG_RUNTIME_DIR/vigil/serve.sock
as a user), "http://HOST:PORT" or "https://HOST:PORT", with `token` or
$VIGIL_SERVE_TOKEN; an https service's certificate is checked against the
system's authorities, or `ca_file` / $VIGIL_SERVE_CA.
"""

import http.client
import json
import os
import socket
import ssl
import time
import urllib.parse

__all__ = [
    "Sandbox",
    "SandboxError",
    "Execution",
    "ExecutionError",
    "CommandResult",
    "EntryInfo",
]


class SandboxError(Exception):
    """The service refused a request: `status` is the HTTP status (0 when
    the service could not be reached)."""

    def __init__(self, message, status=0):
        super().__init__(message)
        self.status = status


class ExecutionError:
    """What run_code's code raised: its type's name, its message, the
    traceback of the code's own frames."""

    def __init__(self, name, value, traceback):
        self.name = name
        self.value = value
        self.traceback = traceback

    def __repr__(self):
        return "ExecutionError(%r, %r)" % (self.name, self.value)


class Logs:
    def __init__(self):
        self.stdout = []
        self.stderr = []


class Result:
    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "Result(%r)" % self.text


class Execution:
    """What run_code returns: the output as it was written, the value of
    the last expression (`text`), the error if the code raised one."""

    def __init__(self):
        self.logs = Logs()
        self.results = []
        self.error = None

    @property
    def text(self):
        return self.results[-1].text if self.results else None


class CommandResult:
    def __init__(self):
        self.stdout = ""
        self.stderr = ""
        self.exit_code = None
        self.error = None


class EntryInfo:
    def __init__(self, name, type, size, path):
        self.name = name
        self.type = type
        self.size = size
        self.path = path

    def __repr__(self):
        return "EntryInfo(%r, %r, %r)" % (self.name, self.type, self.size)


def _default_url():
    if os.geteuid() == 0:
        return "unix:///run/vigil/serve.sock"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return "unix://%s/vigil/serve.sock" % runtime
    return "unix://%s/vigil-%d/serve.sock" % (os.environ.get("TMPDIR", "/tmp"), os.geteuid())


# How long a client waits for a service that is not listening yet (one
# started a moment ago, `vigil serve &`).
_START_WAIT = 5.0


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        deadline = time.monotonic() + _START_WAIT
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self._path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.sock = sock


class _Client:
    """One connection to the service, kept alive across requests."""

    def __init__(self, url=None, token=None, timeout=None, ca_file=None):
        self.url = url or os.environ.get("VIGIL_SERVE_URL") or _default_url()
        self.token = token if token is not None else os.environ.get("VIGIL_SERVE_TOKEN")
        self.timeout = timeout
        self.ca_file = ca_file or os.environ.get("VIGIL_SERVE_CA")
        self._connection = None

    def _connect(self):
        parsed = urllib.parse.urlsplit(self.url)
        if parsed.scheme == "unix":
            return _UnixConnection(parsed.path, self.timeout)
        if parsed.scheme == "http":
            return http.client.HTTPConnection(parsed.hostname, parsed.port or 80, timeout=self.timeout)
        if parsed.scheme == "https":
            context = ssl.create_default_context(cafile=self.ca_file)
            return http.client.HTTPSConnection(parsed.hostname, parsed.port or 443,
                                               timeout=self.timeout, context=context)
        raise SandboxError("VIGIL_SERVE_URL %r: wanted unix://PATH or http(s)://HOST:PORT" % self.url)

    def request(self, method, path, body=None, query=None, content_type="application/json"):
        """The response, its status checked; the caller reads it."""
        if query:
            path += "?" + urllib.parse.urlencode(query)
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        headers = {"Content-Type": content_type}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        for attempt in (0, 1):
            if self._connection is None:
                self._connection = self._connect()
            try:
                self._connection.request(method, path, body=body, headers=headers)
                response = self._connection.getresponse()
                break
            except (ConnectionError, http.client.RemoteDisconnected, BrokenPipeError) as e:
                # A kept-alive connection the service closed meanwhile: once more.
                self.close()
                if attempt:
                    raise SandboxError("cannot reach vigil serve at %s: %s" % (self.url, e))
            except OSError as e:
                self.close()
                raise SandboxError("cannot reach vigil serve at %s: %s" % (self.url, e))
        if response.status >= 400:
            text = response.read()
            try:
                message = json.loads(text)["error"]
            except (ValueError, KeyError, TypeError):
                message = text.decode("utf-8", "replace") or response.reason
            raise SandboxError(message, response.status)
        return response

    def json(self, method, path, body=None, query=None):
        response = self.request(method, path, body, query)
        text = response.read()
        return json.loads(text) if text else None

    def lines(self, path, body):
        """The JSON lines a streamed answer holds, as they come."""
        response = self.request("POST", path, body)
        while True:
            line = response.readline()
            if not line:
                return
            yield json.loads(line)

    def close(self):
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class Commands:
    def __init__(self, sandbox):
        self._sandbox = sandbox

    def run(self, cmd, cwd=None, env=None, timeout=None, on_stdout=None, on_stderr=None):
        """Runs `cmd` with /bin/sh in the sandbox and waits for it."""
        body = {"cmd": cmd, "env": env or {}}
        if cwd is not None:
            body["cwd"] = cwd
        if timeout is not None:
            body["timeout"] = timeout
        result = CommandResult()
        for reply in self._sandbox._client.lines(self._sandbox._path("/commands"), body):
            kind = reply.get("type")
            if kind == "stdout":
                result.stdout += reply["text"]
                if on_stdout:
                    on_stdout(reply["text"])
            elif kind == "stderr":
                result.stderr += reply["text"]
                if on_stderr:
                    on_stderr(reply["text"])
            elif kind == "exit":
                result.exit_code = reply["status"]
            elif kind == "error":
                result.error = ExecutionError(reply["name"], reply["value"], reply["traceback"])
        return result


class Files:
    def __init__(self, sandbox):
        self._sandbox = sandbox

    def write(self, path, data):
        """Writes `data` (str or bytes) to `path`, making its directories."""
        if isinstance(data, str):
            data = data.encode()
        self._sandbox._client.request(
            "PUT", self._sandbox._path("/files"), data, {"path": path}, "application/octet-stream"
        ).read()

    def read(self, path, format="text"):
        """The file's contents: str, or bytes with format="bytes"."""
        data = self._sandbox._client.request("GET", self._sandbox._path("/files"), query={"path": path}).read()
        return data if format == "bytes" else data.decode()

    def list(self, path):
        answer = self._sandbox._client.json("GET", self._sandbox._path("/files/list"), query={"path": path})
        return [
            EntryInfo(e["name"], e["type"], e["size"], path.rstrip("/") + "/" + e["name"])
            for e in answer["entries"]
        ]


class Sandbox:
    """A sandbox of `vigil serve`: made from `template` (from its warm pool
    when one is ready), ended by kill(), at the end of `timeout` seconds
    (the template's lifetime by default), or by leaving a `with` block."""

    def __init__(self, template="python", timeout=None, env=None, metadata=None, url=None,
                 token=None, sandbox_id=None, request_timeout=None, ca_file=None):
        self._client = _Client(url, token, request_timeout, ca_file)
        self.commands = Commands(self)
        self.files = Files(self)
        if sandbox_id is not None:
            self._info = self._client.json("GET", "/sandboxes/" + sandbox_id)
        else:
            body = {"template": template, "env": env or {}, "metadata": metadata or {}}
            if timeout is not None:
                body["timeout"] = timeout
            self._info = self._client.json("POST", "/sandboxes", body)
        self.sandbox_id = self._info["sandboxId"]

    @classmethod
    def connect(cls, sandbox_id, url=None, token=None, ca_file=None):
        """The live sandbox `sandbox_id`, as another client made it."""
        return cls(url=url, token=token, sandbox_id=sandbox_id, ca_file=ca_file)

    @staticmethod
    def list(url=None, token=None, ca_file=None):
        client = _Client(url, token, ca_file=ca_file)
        try:
            return client.json("GET", "/sandboxes")
        finally:
            client.close()

    def _path(self, rest=""):
        return "/sandboxes/" + self.sandbox_id + rest

    @property
    def metadata(self):
        return self._info.get("metadata", {})

    def run_code(self, code, timeout=None, on_stdout=None, on_stderr=None, on_result=None,
                 on_error=None):
        """Runs Python `code` in the sandbox's interpreter, whose variables
        persist between calls. Output is passed to the callbacks as it comes."""
        body = {"code": code}
        if timeout is not None:
            body["timeout"] = timeout
        execution = Execution()
        for reply in self._client.lines(self._path("/code"), body):
            kind = reply.get("type")
            if kind == "stdout":
                execution.logs.stdout.append(reply["text"])
                if on_stdout:
                    on_stdout(reply["text"])
            elif kind == "stderr":
                execution.logs.stderr.append(reply["text"])
                if on_stderr:
                    on_stderr(reply["text"])
            elif kind == "result":
                execution.results.append(Result(reply["text"]))
                if on_result:
                    on_result(execution.results[-1])
            elif kind == "error":
                execution.error = ExecutionError(reply["name"], reply["value"], reply["traceback"])
                if on_error:
                    on_error(execution.error)
        return execution

    def set_timeout(self, timeout):
        """Ends the sandbox `timeout` seconds from now instead."""
        self._info = self._client.json("POST", self._path("/timeout"), {"timeout": timeout})

    def get_info(self):
        return self._client.json("GET", self._path())

    def audit(self):
        """The sentry's audit records of the sandbox (after it ended too)."""
        text = self._client.request("GET", self._path("/audit")).read().decode()
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def kill(self):
        try:
            self._client.request("DELETE", self._path()).read()
        except SandboxError as e:
            if e.status != 404:
                raise
        finally:
            self._client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()
