"""The conformance harness: the case registry and the context a case runs in.

A case is a function of one argument, a `Case` context, registered with
`@case("section.name")` (or `register(name, fn)` for generated cases). It
mutates `c.config` (runc spec's defaults, with /probe as the process), drives
the runtime through `c.rt(...)` and helpers (`probe`, `create`, `start`,
`state`, ...), and fails with `c.fail(...)` / the `expect*` helpers, or skips
with `c.skip(...)` when the host lacks what it needs.

Every runtime command runs as `RUNTIME --root ROOT ARGS...` in its own process
group, with stdout/stderr in files (after `create` the container inherits
them) and a timeout.
"""

import copy
import fcntl
import json
import os
import pty
import select
import struct
import termios
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

CASES = []  # (name, function), in registration order

CAPS = [
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
    "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
    "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
    "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
    "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
]

# The config.json every harness starts from (tests/bundle/README.md).
RUNC_SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "bundle",
                         "runc_spec.json")
with open(RUNC_SPEC) as template:
    # What the default process is given, which the cases expect it to keep.
    DEFAULT_CAPS = json.load(template)["process"]["capabilities"]["bounding"]
COMMAND_TIMEOUT = 30
SETTLE_TIMEOUT = 10


def case(name):
    """Decorator: registers the function as the case `name`."""
    def wrap(fn):
        register(name, fn)
        return fn
    return wrap


def register(name, fn):
    if any(n == name for n, _ in CASES):
        raise ValueError("duplicate case name " + name)
    CASES.append((name, fn))


def cap_names(mask):
    """The capability names set in a bitmask, sorted."""
    return sorted(CAPS[i] if i < len(CAPS) else "CAP_%d" % i
                  for i in range(64) if mask >> i & 1)


class CaseFailed(Exception):
    pass


class CaseSkipped(Exception):
    pass


class Result:
    """How a command ended: rc (128+N for signal N, None on timeout), out, err."""

    def __init__(self, argv, rc, out, err, out_path=None):
        self.argv, self.rc, self.out, self.err, self.out_path = argv, rc, out, err, out_path

    @property
    def ok(self):
        return self.rc == 0

    def __str__(self):
        cmd = " ".join(self.argv)
        return "`%s` exited %s; stdout %r; stderr %r" % (
            cmd, "TIMEOUT" if self.rc is None else self.rc, self.out[-400:], self.err[-600:])


def set_window_size(terminal, rows, cols):
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def run_command(argv, out_path, err_path, timeout=COMMAND_TIMEOUT, stdin=None, cwd=None,
                env=None):
    """Runs argv with stdout/stderr to files; kills its process group on timeout."""
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(argv, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True, cwd=cwd,
                                env=env)
        try:
            rc = proc.wait(timeout=timeout)
            if rc < 0:
                rc = 128 - rc
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            rc = None
    with open(out_path, "r", errors="replace") as f:
        o = f.read()
    with open(err_path, "r", errors="replace") as f:
        e = f.read()
    return Result(argv, rc, o, e, out_path)


_APPLETS = None


def busybox_applets():
    global _APPLETS
    if _APPLETS is None:
        out = subprocess.run(["/bin/busybox", "--list"], capture_output=True, text=True).stdout
        _APPLETS = [a for a in out.split() if a and a != "busybox"]
    return _APPLETS


def build_rootfs(rootfs, probe):
    """busybox-static with a link per applet in /bin, and the probe at /probe."""
    for d in ("bin", "proc", "dev", "sys", "tmp", "etc", "mnt"):
        os.makedirs(os.path.join(rootfs, d), exist_ok=True)
    os.chmod(os.path.join(rootfs, "tmp"), 0o1777)
    shutil.copy2("/bin/busybox", os.path.join(rootfs, "bin/busybox"))
    for applet in busybox_applets():
        os.symlink("busybox", os.path.join(rootfs, "bin", applet))
    shutil.copy2(probe, os.path.join(rootfs, "probe"))
    os.chmod(os.path.join(rootfs, "probe"), 0o755)
    with open(os.path.join(rootfs, "etc/passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n")
    with open(os.path.join(rootfs, "etc/group"), "w") as f:
        f.write("root:x:0:\nnogroup:x:65534:\n")


def default_config(token, marker):
    """`runc spec`'s config (tests/bundle/runc_spec.json), with /probe as the
    process and a cgroupsPath of our own so the host can find the
    container's cgroups."""
    with open(RUNC_SPEC) as f:
        config = json.load(f)
    config["process"]["args"] = ["/probe"]
    config["process"]["env"] += ["TERM=xterm", marker]
    config["hostname"] = "conformance"
    config["linux"]["cgroupsPath"] = "/vigil-conf-" + token
    return config


def host_ns(name):
    return os.stat("/proc/self/ns/" + name).st_ino


RLIMIT_NUMBERS = {
    "RLIMIT_CPU": 0, "RLIMIT_FSIZE": 1, "RLIMIT_DATA": 2, "RLIMIT_STACK": 3, "RLIMIT_CORE": 4,
    "RLIMIT_RSS": 5, "RLIMIT_NPROC": 6, "RLIMIT_NOFILE": 7, "RLIMIT_MEMLOCK": 8, "RLIMIT_AS": 9,
    "RLIMIT_LOCKS": 10, "RLIMIT_SIGPENDING": 11, "RLIMIT_MSGQUEUE": 12, "RLIMIT_NICE": 13,
    "RLIMIT_RTPRIO": 14, "RLIMIT_RTTIME": 15,
}


def host_rlimit(name):
    """(soft, hard) of the caller; -1 is unlimited."""
    return resource.getrlimit(RLIMIT_NUMBERS[name])


class Case:
    """One case against one runtime: a private temp dir with the bundle."""

    def __init__(self, name, runtime, root, probe):
        self.name = name
        self.runtime = runtime  # argv prefix
        self.root = root
        self.tmp = tempfile.mkdtemp(prefix="vigil-conf-")
        self.token = secrets.token_hex(4)
        self.marker = "VIGIL_CONFORMANCE=" + self.tmp
        self.bundle = os.path.join(self.tmp, "bundle")
        self.rootfs = os.path.join(self.bundle, "rootfs")
        self.scratch = os.path.join(self.tmp, "scratch")
        os.makedirs(self.scratch)
        build_rootfs(self.rootfs, probe)
        self.config = default_config(self.token, self.marker)
        self.ids = []
        self.host_procs = []
        self.host_mounts = []
        self.cleanups = []
        self._commands = 0

    # -- outcome -----------------------------------------------------------
    def fail(self, msg):
        raise CaseFailed(msg)

    def skip(self, msg):
        raise CaseSkipped(msg)

    def expect(self, cond, msg):
        if not cond:
            self.fail(msg)

    def eq(self, got, want, what):
        if got != want:
            self.fail("%s: got %r, want %r" % (what, got, want))

    # -- paths and files ---------------------------------------------------
    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write(self, path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def read(self, path, default=None):
        try:
            with open(path) as f:
                return f.read()
        except OSError:
            return default

    def host_dir(self, name, files=None):
        """A directory under the case's temp dir, with {name: text} files."""
        d = self.path(name)
        os.makedirs(d, exist_ok=True)
        for fname, text in (files or {}).items():
            self.write(os.path.join(d, fname), text)
        return d

    def write_config(self):
        with open(os.path.join(self.bundle, "config.json"), "w") as f:
            json.dump(self.config, f, indent=1)

    # -- config helpers ----------------------------------------------------
    @property
    def process(self):
        return self.config["process"]

    @property
    def linux(self):
        return self.config["linux"]

    def set_args(self, *args):
        self.process["args"] = list(args)

    def probe_args(self, *actions):
        self.process["args"] = ["/probe"] + [str(a) for a in actions]

    def sleeper(self, seconds=600):
        """The process: busybox sleep (signals other than KILL are ignored by
        a pid-namespace init without handlers, so kill tests use KILL or sh)."""
        self.process["args"] = ["/bin/sleep", str(seconds)]

    def add_mount(self, destination, type_, source, options=None):
        m = {"destination": destination, "type": type_, "source": source}
        if options is not None:
            m["options"] = options
        self.config["mounts"].append(m)
        return m

    def remove_namespace(self, t):
        self.linux["namespaces"] = [n for n in self.linux["namespaces"] if n["type"] != t]

    def set_namespace(self, t, path=None):
        self.remove_namespace(t)
        n = {"type": t}
        if path:
            n["path"] = path
        self.linux["namespaces"].append(n)

    @property
    def cgroups_path(self):
        return self.linux.get("cgroupsPath", "/vigil-conf-" + self.token)

    # -- the runtime -------------------------------------------------------
    def rt(self, *args, timeout=COMMAND_TIMEOUT, stdin=None, cwd=None):
        self._commands += 1
        base = os.path.join(self.scratch, "%03d" % self._commands)
        argv = list(self.runtime) + ["--root", self.root] + [str(a) for a in args]
        return run_command(argv, base + ".out", base + ".err", timeout=timeout, stdin=stdin,
                           cwd=cwd)

    def new_id(self, suffix=None):
        cid = "conf-%s-%d" % (self.token, len(self.ids)) if suffix is None else suffix
        self.ids.append(cid)
        return cid

    def run(self, cid=None, extra=(), timeout=COMMAND_TIMEOUT):
        """`run --bundle B ID` with the current config; the container's
        output is the result's."""
        self.write_config()
        cid = cid or self.new_id()
        return self.rt("run", "--bundle", self.bundle, *extra, cid, timeout=timeout)

    def probe(self, *actions, rc=0):
        """Runs the probe with `actions` under the current config and returns
        its JSON; fails unless the container exits with `rc`."""
        if actions:
            self.probe_args(*actions)
        r = self.run()
        if r.rc != rc:
            self.fail("run: wanted exit %s: %s" % (rc, r))
        return self.parse_probe(r.out, r)

    def parse_probe(self, text, context=""):
        for line in text.splitlines():
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError as e:
                    self.fail("probe output is not JSON (%s): %r" % (e, line[:300]))
        self.fail("no probe output: %s" % context)

    def check(self, p, index=0):
        """The probe's result for its index-th action."""
        return p["checks"][index]

    def create(self, cid=None, expect_ok=True, extra=()):
        self.write_config()
        cid = cid or self.new_id()
        pid_file = self.path("scratch", cid + ".pid")
        r = self.rt("create", "--bundle", self.bundle, "--pid-file", pid_file, *extra, cid)
        if expect_ok and not r.ok:
            self.fail("create: %s" % r)
        self.last_create = r
        return cid if expect_ok else r

    def pid_file(self, cid):
        return self.path("scratch", cid + ".pid")

    def start(self, cid, expect_ok=True):
        r = self.rt("start", cid)
        if expect_ok and not r.ok:
            self.fail("start: %s" % r)
        return r

    def create_start(self, cid=None):
        cid = self.create(cid)
        self.start(cid)
        return cid

    def state(self, cid, must=True):
        r = self.rt("state", cid)
        if not r.ok:
            if must:
                self.fail("state: %s" % r)
            return None
        try:
            return json.loads(r.out)
        except ValueError:
            self.fail("state is not JSON: %r" % r.out)

    def status(self, cid):
        s = self.state(cid, must=False)
        return s["status"] if s else None

    def wait_status(self, cid, status, timeout=SETTLE_TIMEOUT):
        deadline = time.time() + timeout
        while True:
            got = self.status(cid)
            if got == status:
                return
            if time.time() > deadline:
                self.fail("status of %s: got %r, waited for %r" % (cid, got, status))
            time.sleep(0.05)

    def wait_for(self, fn, what, timeout=SETTLE_TIMEOUT):
        deadline = time.time() + timeout
        while True:
            v = fn()
            if v:
                return v
            if time.time() > deadline:
                self.fail("timed out waiting for " + what)
            time.sleep(0.05)

    def output_of_create(self):
        """What the container wrote to the stdout it inherited from `create`."""
        return self.read(self.last_create.out_path, "")

    def probe_from_create(self, cid):
        """After create+start of a probe: waits for it to stop and parses its output."""
        self.wait_status(cid, "stopped")
        return self.parse_probe(self.output_of_create(), "create's stdout")

    def console(self):
        """A --console-socket: returns (path, box); a thread receives the pty
        master and reads it into box["data"] until the terminal closes."""
        path = self.path("console.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(1)
        srv.settimeout(COMMAND_TIMEOUT)
        box = {"data": b""}

        def serve():
            try:
                conn, _ = srv.accept()
                _, fds, _, _ = socket.recv_fds(conn, 4096, 1)
                conn.close()
                box["fd"] = fds[0]
                while True:
                    try:
                        chunk = os.read(fds[0], 4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    box["data"] += chunk
            except OSError as e:
                box["error"] = str(e)
            finally:
                srv.close()

        t = threading.Thread(target=serve, daemon=True)
        t.start()
        box["thread"] = t
        self.cleanups.append(lambda: os.close(box["fd"]) if "fd" in box else None)
        return path, box

    def run_in_terminal(self, size=(24, 80), steps=(), extra=(), timeout=COMMAND_TIMEOUT):
        """`run --bundle B ID` as a person at a terminal runs it (see
        in_terminal)."""
        self.write_config()
        return self.in_terminal(["run", "--bundle", self.bundle, *extra, self.new_id()],
                                size, steps, timeout)

    def in_terminal(self, args, size=(24, 80), steps=(), timeout=COMMAND_TIMEOUT):
        """The runtime with `args` as a person at a terminal runs it: a new
        pseudo-terminal of window size (rows, cols) is the runtime's
        controlling terminal and its stdin, stdout and stderr. `steps` are
        (bytes, action) pairs: once the output holds the bytes, action(master)
        runs (writes input, resizes). Returns the Result; its out is what the
        terminal showed."""
        argv = list(self.runtime) + ["--root", self.root] + [str(a) for a in args]
        master, slave = pty.openpty()
        set_window_size(master, *size)

        def controlling_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                                preexec_fn=controlling_terminal)
        os.close(slave)
        shown, pending = b"", list(steps)
        deadline = time.time() + timeout
        try:
            while time.time() < deadline:
                if pending and pending[0][0] in shown:
                    pending.pop(0)[1](master)
                    continue
                if not select.select([master], [], [], 0.2)[0]:
                    continue
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the runtime, the last holder, closed it
                    chunk = b""
                if not chunk:
                    break
                shown += chunk
            rc = proc.wait(timeout=max(1, deadline - time.time()))
            if rc < 0:
                rc = 128 - rc
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            rc = None
        finally:
            os.close(master)
        return Result(argv, rc, shown.decode(errors="replace"), "", None)

    def terminal_output(self, box, cid):
        """Waits for `cid` to stop and for its terminal output."""
        self.wait_status(cid, "stopped")
        box["thread"].join(3)
        return box["data"].decode(errors="replace")

    # -- the host's view ---------------------------------------------------
    def container_pids(self):
        """Host pids of live processes carrying this case's marker."""
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open("/proc/%s/environ" % entry, "rb") as f:
                    env = f.read()
                with open("/proc/%s/stat" % entry) as f:
                    stat = f.read()
            except OSError:
                continue
            if stat[stat.rfind(")") + 2] in "ZX":
                continue
            if (self.marker.encode() + b"\0") in env or env.endswith(self.marker.encode()):
                pids.append(int(entry))
        return sorted(pids)

    def cgroup_dir(self, controller):
        return "/sys/fs/cgroup/%s%s" % (controller, self.cgroups_path)

    def cgroup_file(self, controller, name):
        path = os.path.join(self.cgroup_dir(controller), name)
        text = self.read(path)
        if text is None:
            self.skip("no %s on this host" % path)
        return text.strip()

    def spawn_host(self, argv):
        """A host process that lives until the case is cleaned up."""
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        self.host_procs.append(p)
        return p

    # -- cleanup -----------------------------------------------------------
    def cleanup(self):
        for cid in self.ids:
            self.rt("delete", "--force", cid, timeout=15)
        for p in self.host_procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        for fn in self.cleanups:
            try:
                fn()
            except Exception:
                pass
        for m in reversed(self.host_mounts):
            subprocess.run(["umount", "-l", m], capture_output=True)
        for pid in self.container_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for controller in ("memory", "cpu", "cpuacct", "cpuset", "pids", "blkio", "devices",
                           "freezer", "systemd", "net_cls", "hugetlb", "perf_event"):
            d = "/sys/fs/cgroup/%s%s" % (controller, self.cgroups_path)
            if os.path.isdir(d):
                try:
                    os.rmdir(d)
                except OSError:
                    pass
        shutil.rmtree(self.tmp, ignore_errors=True)
