# The code-execution kernel `vigil serve` runs in each sandbox, with the
# image's own Python: one long-lived interpreter whose globals persist
# between calls, as a notebook's kernel. The service writes one request per
# line (JSON) to its standard input and reads JSON lines back from its
# standard output, each reply ending with {"type": "end"}. It runs as the
# sandbox's process, with the sandbox's rights only: files are read and
# written here, never by the service on the host.
#
# Requests: {"op": "run_code", "code", "timeout_ms"}, {"op": "command",
# "cmd", "cwd", "env", "timeout_ms"}, {"op": "write_file", "path", "size"} followed
# by that many bytes, {"op": "read_file", "path", "max"}, {"op": "list", "path"},
# {"op": "env", "env"}. Replies: "stdout"/"stderr" {"text"} as they come,
# then "result" {"text"}, "error" {"name", "value", "traceback"}, "exit"
# {"status"}, "file" {"size"} followed by that many bytes, "entries"
# {"entries"}; "end" last.
import ast
import codecs
import json
import linecache
import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback

# The protocol's descriptors, away from 0-2, which the code's own output
# (print, os.system, a C library) would otherwise mix into the replies.
_requests = os.fdopen(os.dup(0), "rb")
# Buffered, flushed after each reply: a raw write may write part of a long
# one (a signal, the call's own timeout, arriving in the middle).
_replies = os.fdopen(os.dup(1), "wb")
_reply_lock = threading.Lock()
# Held while output is put in order: what the code wrote to sys.stdout and
# sys.stderr (kept until a line ends) and what reached descriptors 1 and 2
# (a child process, C code), so that replies come in the order written.
_order_lock = threading.RLock()
# The most text a stream keeps before it replies without a line's end: the
# service takes reply lines up to 16 MiB.
_MAX_PENDING = 1 << 20


# Whether the main thread is writing a reply: the call's timeout, a signal
# handler that raises, must not cut one in two (_on_alarm waits for it).
_writing = False


def reply(kind, payload=b"", **fields):
    global _writing
    fields["type"] = kind
    line = json.dumps(fields).encode() + b"\n"
    main = threading.current_thread() is threading.main_thread()
    with _reply_lock:
        if main:
            _writing = True
        try:
            _replies.write(line)
            if payload:
                _replies.write(payload)
            _replies.flush()
        finally:
            if main:
                _writing = False


class _Stream:
    """sys.stdout/sys.stderr: a reply per line written, and for what is
    left when the other stream or a descriptor is written to, or the call
    ends."""

    def __init__(self, name):
        self.name = name
        self.encoding = "utf-8"
        self.errors = "replace"
        self.pending = ""

    def write(self, text):
        text = str(text)
        if not text:
            return 0
        with _order_lock:
            _pump(self)
            self.pending += text
            at = self.pending.rfind("\n")
            if at >= 0:
                reply(self.name, text=self.pending[: at + 1])
                self.pending = self.pending[at + 1 :]
            if len(self.pending) >= _MAX_PENDING:  # a long line goes in pieces
                self.flush()
        return len(text)

    def flush(self):
        with _order_lock:
            if self.pending:
                text, self.pending = self.pending, ""
                reply(self.name, text=text)

    def isatty(self):
        return False

    def fileno(self):
        return 1 if self.name == "stdout" else 2

    def writable(self):
        return True


class _FdCapture:
    """Descriptor 1 or 2: a pipe whose bytes become replies."""

    def __init__(self, fd, name):
        self.name = name
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.read_end, write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        os.dup2(write_end, fd)
        os.close(write_end)

    def take(self):
        """What the pipe holds now, decoded."""
        data = b""
        while True:
            try:
                chunk = os.read(self.read_end, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        return self.decoder.decode(data)


_streams = []
_captures = []


def _pump(writing=None):
    """Sends what reached descriptors 1 and 2, after what the streams held
    from before it (but `writing`'s other stream's in any case: it was
    written before what `writing` is about to)."""
    with _order_lock:
        taken = [(c.name, c.take()) for c in _captures]
        for stream in _streams:
            if stream is not writing and (writing is not None or any(t for _, t in taken)):
                stream.flush()
        if any(t for _, t in taken) and writing is not None:
            writing.flush()
        for name, text in taken:
            if text:
                reply(name, text=text)


def _watch():
    """Streams descriptor output as it comes (a long command's)."""
    poller = select.poll()
    for capture in _captures:
        poller.register(capture.read_end, select.POLLIN)
    while True:
        poller.poll()
        _pump()
        time.sleep(0.01)  # gather a burst into fewer replies


def _on_alarm(signum, frame):
    if _writing:
        signal.setitimer(signal.ITIMER_REAL, 0.01)  # once the reply is whole
        return
    raise TimeoutError("the call ran past its timeout")


def _error(exc):
    # The caller's frames only: the kernel's are not the caller's business.
    error = traceback.TracebackException.from_exception(exc)
    frames = [f for f in error.stack if f.filename.startswith("<cell-")]
    text = ""
    if frames:
        text = "Traceback (most recent call last):\n"
        text += "".join(traceback.StackSummary.from_list(frames).format())
    text += "".join(error.format_exception_only())
    reply("error", name=type(exc).__name__, value=str(exc), traceback=text)


_globals = {"__name__": "__main__", "__builtins__": __builtins__}


_cells = 0


def run_code(request):
    global _cells
    code = request.get("code", "")
    # A name per cell, its source where tracebacks look lines up.
    _cells += 1
    cell = "<cell-%d>" % _cells
    linecache.cache[cell] = (len(code), None, code.splitlines(True), cell)
    tree = ast.parse(code, cell, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    timeout = float(request.get("timeout_ms") or 0) / 1000
    if timeout > 0:
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        exec(compile(tree, cell, "exec"), _globals)
        value = None if last is None else eval(compile(last, cell, "eval"), _globals)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        drain()
    if value is not None:
        reply("result", text=repr(value))


def command(request):
    env = dict(os.environ)
    env.update(request.get("env") or {})
    child = subprocess.Popen(
        ["/bin/sh", "-c", request["cmd"]],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=request.get("cwd") or None,
        env=env,
        start_new_session=True,
    )

    def pump(stream, name):
        for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
            reply(name, text=chunk.decode("utf-8", "replace"))

    pumps = [
        threading.Thread(target=pump, args=(child.stdout, "stdout")),
        threading.Thread(target=pump, args=(child.stderr, "stderr")),
    ]
    for t in pumps:
        t.start()
    timeout = float(request.get("timeout_ms") or 0) / 1000 or None
    try:
        status = child.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        for t in pumps:
            t.join()
        raise TimeoutError("the command ran past its timeout") from None
    for t in pumps:
        t.join()
    reply("exit", status=status if status >= 0 else 128 - status)


def write_file(request):
    size = int(request["size"])
    data = _requests.read(size)  # the payload is read whatever happens next
    if len(data) != size:
        raise EOFError("the file's bytes ended early")
    path = request["path"]
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def read_file(request):
    limit = int(request["max"])
    with open(request["path"], "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError("the file is over the service's limit of %d bytes" % limit)
    reply("file", payload=data, size=len(data))


def list_dir(request):
    entries = []
    with os.scandir(request["path"]) as it:
        for e in it:
            kind = "dir" if e.is_dir(follow_symlinks=False) else "file"
            if e.is_symlink():
                kind = "symlink"
            size = e.stat(follow_symlinks=False).st_size
            entries.append({"name": e.name, "type": kind, "size": size})
    entries.sort(key=lambda e: e["name"])
    reply("entries", entries=entries)


def set_env(request):
    os.environ.update(request.get("env") or {})


OPS = {
    "run_code": run_code,
    "command": command,
    "write_file": write_file,
    "read_file": read_file,
    "list": list_dir,
    "env": set_env,
}


def drain():
    """Sends everything written so far."""
    _pump()
    for stream in _streams:
        stream.flush()


def main():
    signal.signal(signal.SIGALRM, _on_alarm)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    _captures.extend([_FdCapture(1, "stdout"), _FdCapture(2, "stderr")])
    _streams.extend([_Stream("stdout"), _Stream("stderr")])
    sys.stdout, sys.stderr = _streams
    threading.Thread(target=_watch, daemon=True).start()
    reply("ready", pid=os.getpid())
    reply("end")
    for line in _requests:
        try:
            request = json.loads(line)
            op = OPS.get(request.get("op"))
            if op is None:
                raise ValueError("unknown op %r" % request.get("op"))
            op(request)
        except BaseException as exc:  # the kernel outlives whatever the code raised
            drain()
            _error(exc)
        reply("end")


main()
