"""Running commands with a timeout and a wall clock, and reading /proc."""

import os
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass


@dataclass
class Outcome:
    argv: list
    rc: int          # exit status, 128+N for signal N, -1 when it timed out
    seconds: float   # wall time from spawn to reap
    out: str
    err: str

    @property
    def ok(self):
        return self.rc == 0

    def describe(self):
        tail = (self.err.strip() or self.out.strip())[-600:]
        return f"{' '.join(self.argv[:6])}...: rc={self.rc}: {tail}"


def run(argv, timeout=60.0, preexec=None, env=None, stdin=subprocess.DEVNULL):
    """Runs argv to completion (or kills its process group at `timeout`).

    stdout and stderr go to files, not pipes: a runtime's `create` hands its
    stdio to the container, and a pipe would stay open while it lives."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(argv, stdin=stdin, stdout=out, stderr=err, preexec_fn=preexec,
                             env=env, start_new_session=True)
        if exited_within(p.pid, timeout):
            seconds = time.perf_counter() - start
            rc = p.wait()
        else:
            kill_group(p.pid)
            p.wait()
            seconds = time.perf_counter() - start
            rc = -1
        if rc < 0 and rc != -1:
            rc = 128 - rc
        out.seek(0)
        err.seek(0)
        return Outcome(list(argv), rc, seconds, out.read().decode(errors="replace"),
                       err.read().decode(errors="replace"))


def exited_within(pid, timeout):
    """Whether child `pid` exits within `timeout` seconds, seen the moment it
    does through a pidfd. Not Popen.wait(timeout): that polls with sleeps
    that grow to 50 ms, which put every wall time measured with it on steps
    (a 64 ms run reads as 113.5 ms)."""
    fd = os.pidfd_open(pid)
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def kill_group(pid):
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def read(path, default=""):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return default


def cmdline(pid):
    return read(f"/proc/{pid}/cmdline").split("\0")


def exe(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def all_pids():
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def children_map():
    """ppid -> [pid] for every process now."""
    kids = {}
    for pid in all_pids():
        stat = read(f"/proc/{pid}/stat")
        close = stat.rfind(")")
        if close < 0:
            continue
        fields = stat[close + 2:].split()
        if len(fields) > 1:
            kids.setdefault(int(fields[1]), []).append(pid)
    return kids


def descendants(roots):
    kids = children_map()
    seen, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(kids.get(pid, []))
    return seen


def alive(pid):
    stat = read(f"/proc/{pid}/stat")
    close = stat.rfind(")")
    return close >= 0 and stat[close + 2:close + 3] not in ("Z", "X", "")


def memory_kib(pid):
    """(PSS, RSS) in KiB from /proc/PID/smaps_rollup; (0, 0) if it is gone."""
    pss = rss = 0
    for line in read(f"/proc/{pid}/smaps_rollup").splitlines():
        if line.startswith("Pss:"):
            pss = int(line.split()[1])
        elif line.startswith("Rss:"):
            rss = int(line.split()[1])
    return pss, rss


def mem_available_kib():
    for line in read("/proc/meminfo").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1])
    return 0


def wait_pid_exit(pid, timeout):
    """Waits for a process that is not our child to exit (pidfd); seconds or None."""
    start = time.perf_counter()
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return 0.0
    try:
        p = select.poll()
        p.register(fd, select.POLLIN)
        if not p.poll(timeout * 1000):
            return None
        return time.perf_counter() - start
    finally:
        os.close(fd)
