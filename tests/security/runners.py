"""How each attack of tests/security/run is run and judged: most run once
and report their own verdict (run_plain); a few need the host to act during
the run or to measure it (RUNNERS). Each runner takes an AttackRun and
returns (verdict, detail[, output])."""

import fcntl
import glob
import json
import os
import pty
import subprocess
import termios
import time
import tty

CPU_PERCENT = 20       # the containers' CPU quota, % of one CPU
CWD_FDS = range(3, 9)  # process.cwd = /proc/self/fd/N (CVE-2024-21626)
EXECS = 5              # `exec`s into the container during exe-overwrite


def parse_line(text, attack):
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if d.get("attack") == attack:
                return d
    return None


def one_line(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


def run_plain(a):
    r = a.run()
    d = parse_line(r.out, a.attack)
    if d is None:
        return "ERROR", "no result line: %s" % one_line(r)
    return d["result"], d["detail"], r.out + r.err


def run_cwd(a):
    """process.cwd = /proc/self/fd/N: refusing to start is contained."""
    details, outputs, verdict = [], "", "CONTAINED"
    for fd in CWD_FDS:
        r = a.run(cwd="/proc/self/fd/%d" % fd)
        outputs += r.out + r.err
        d = parse_line(r.out, a.attack)
        if d is None:
            details.append("fd %d: not started (%s)" % (fd, one_line(r.err, 80) or r.rc))
            continue
        details.append("fd %d: %s" % (fd, d["detail"]))
        if d["result"] == "ESCAPED":
            verdict = "ESCAPED"
    return verdict, "; ".join(details), outputs


def start_until_ready(a, seconds):
    """create + start the attack, then wait up to `seconds` for it to print
    READY: (container id, the path of its output), or an ERROR result."""
    a.write_config()
    cid = a.new_id()
    r = a.rt("create", "--bundle", a.bundle, "--pid-file", os.path.join(a.tmp, "pid"), cid)
    if not r.ok:
        return None, ("ERROR", "create: %s" % one_line(r))
    out_path = r.out_path
    r = a.rt("start", cid)
    if not r.ok:
        return None, ("ERROR", "start: %s" % one_line(r))
    deadline = time.time() + seconds
    while time.time() < deadline and "READY" not in open(out_path).read():
        time.sleep(0.05)
    return cid, out_path


def run_exe(a):
    """create + start the watcher, then `exec` into the container EXECS times."""
    cid, out_path = start_until_ready(a, 10)
    if cid is None:
        return out_path
    execs = []
    for _ in range(EXECS):
        e = a.rt("exec", cid, "/attack", "noop", timeout=20)
        execs.append(str(e.rc))
    deadline = time.time() + 15
    d = None
    while time.time() < deadline:
        d = parse_line(open(out_path).read(), a.attack)
        if d:
            break
        time.sleep(0.1)
    output = open(out_path).read()
    if d is None:
        return "ERROR", "no result line; execs exited %s" % ",".join(execs)
    return d["result"], d["detail"] + " (execs exited %s)" % ",".join(execs), output


# audit-flood: what the flood may cost the host beside the container.
FLOOD_CPU_SLACK = 10          # percentage points of one CPU above the quota
FLOOD_AUDIT_CAP = 3 * (10 << 20)  # vigil's default cap: 10 MiB x 3 files


def stat_fields(pid):
    """/proc/PID/stat after the command name (field 3 on), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def cpu_seconds(pid):
    """utime + stime of `pid` (all its threads, not its children), or None."""
    fields = stat_fields(pid)
    return None if fields is None else (int(fields[11]) + int(fields[12])) / os.sysconf(
        "SC_CLK_TCK")


def parent_of(pid):
    fields = stat_fields(pid)
    return None if fields is None else int(fields[1])


def run_flood(a):
    """create + start the flood, then watch the pid the runtime reported
    (the container's init) and, when it is a runtime's process (vigil's
    supervisor, outside the container's pid namespace; runc leaves none),
    its parent: together they must stay within the container's CPU quota,
    and the audit the runtime leaves in its state directory within the cap."""
    a.write_config()
    cid = a.new_id()
    pid_file = os.path.join(a.tmp, "pid")
    r = a.rt("create", "--bundle", a.bundle, "--pid-file", pid_file, cid)
    if not r.ok:
        return "ERROR", "create: %s" % one_line(r)
    out_path = r.out_path
    pid = int(open(pid_file).read().strip() or 0)
    parent = parent_of(pid)
    watched = [pid] + ([parent] if parent not in (None, 0, 1, os.getpid()) else [])
    started = time.time()
    r = a.rt("start", cid)
    if not r.ok:
        return "ERROR", "start: %s" % one_line(r)
    used, audit = 0.0, 0
    while time.time() - started < 30:
        now = [cpu_seconds(p) for p in watched]
        if None in now:
            break
        used = sum(now)
        audit = max(audit, sum(os.path.getsize(p) for p in
                               glob.glob(os.path.join(a.root, ".audit", cid + ".jsonl*"))))
        if parse_line(open(out_path).read(), a.attack):
            break
        time.sleep(0.1)
    wall = max(time.time() - started, 0.001)
    output = open(out_path).read()
    d = parse_line(output, a.attack)
    if d is None:
        return "ERROR", "no result line"
    percent = 100 * used / wall
    detail = ("%s; the init and the runtime's process above it used %.1f %% of one CPU "
              "(quota %d %%), audit %d KiB" % (d["detail"], percent, CPU_PERCENT, audit >> 10))
    if percent > CPU_PERCENT + FLOOD_CPU_SLACK or audit > FLOOD_AUDIT_CAP:
        return "ESCAPED", detail, output
    return "CONTAINED", detail, output


def under_terminal(a, args, stdin_is_terminal, timeout=30):
    """Runs the runtime with `args` as an operator's shell would: in a
    session whose controlling terminal is a fresh pty (raw, so that input
    pushed into it can be read back at once), with that terminal as stdin
    if `stdin_is_terminal`. Returns (rc, stdout + stderr, what was pushed
    into the terminal's input)."""
    master, slave = pty.openpty()
    tty.setraw(slave)

    def take_terminal():
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    argv = list(a.runtime) + ["--root", a.root] + [str(x) for x in args]
    try:
        proc = subprocess.run(argv, stdin=slave if stdin_is_terminal else subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              preexec_fn=take_terminal, pass_fds=(slave,), timeout=timeout)
        rc, output = proc.returncode, proc.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, output = None, (e.stdout or b"").decode(errors="replace")
    fcntl.fcntl(slave, fcntl.F_SETFL, os.O_NONBLOCK)
    pushed = b""
    try:
        while True:
            chunk = os.read(slave, 4096)
            if not chunk:
                break
            pushed += chunk
    except OSError:
        pass
    os.close(slave)
    os.close(master)
    return rc, output, pushed.decode(errors="replace")


def judged(a, rc, output, pushed):
    if pushed:
        return "ESCAPED", "HOST: the operator's terminal got input %r" % pushed, output
    d = parse_line(output, a.attack)
    if d is None:
        return "ERROR", "no result line (exit %s): %s" % (rc, one_line(output))
    return d["result"], d["detail"], output


def run_tty_exec(a):
    """`exec` typed in an operator's shell, without -t, into a running container."""
    a.write_config(args=["sleep", "30"])
    cid = a.new_id()
    r = a.rt("create", "--bundle", a.bundle, cid)
    if not r.ok:
        return "ERROR", "create: %s" % one_line(r)
    r = a.rt("start", cid)
    if not r.ok:
        return "ERROR", "start: %s" % one_line(r)
    rc, output, pushed = under_terminal(a, ["exec", cid, "/attack", a.attack], True)
    a.rt("kill", cid, "KILL")
    return judged(a, rc, output, pushed)


def run_tty_run(a):
    """`run` of a container without a terminal, from an operator's shell."""
    a.write_config()
    rc, output, pushed = under_terminal(a, ["run", "--bundle", a.bundle, a.new_id()], False)
    return judged(a, rc, output, pushed)


def run_starvation(a):
    """create + start the attack; once it says READY, `exec` into it as an
    operator would into a busy container: not answered in 10 s is an
    escape whatever the attack says."""
    cid, out_path = start_until_ready(a, 20)
    if cid is None:
        return out_path
    e = a.rt("exec", cid, "true", timeout=10)
    deadline = time.time() + 30
    d = None
    while time.time() < deadline and d is None:
        d = parse_line(open(out_path).read(), a.attack)
        time.sleep(0.1)
    output = open(out_path).read()
    if d is None:
        return "ERROR", "no result line; exec exited %s" % e.rc
    if e.rc != 0:
        return "ESCAPED", d["detail"] + "; vigil exec not answered (exit %s)" % e.rc, output
    return d["result"], d["detail"] + "; vigil exec answered", output


ROOTLESS_NAMESPACES = ("user", "mount", "pid", "ipc", "uts", "network")


def rootless_config(a, uid, gid):
    """The attack's config as a user's own (`vigil spec --rootless`, a
    rootless runc): a user namespace mapping the user to root, no cgroup,
    devices or mounts a user may not make."""
    with open(os.path.join(a.bundle, "config.json")) as f:
        config = json.load(f)
    linux = config["linux"]
    linux["namespaces"] = [{"type": t} for t in ROOTLESS_NAMESPACES]
    linux["uidMappings"] = [{"containerID": 0, "hostID": uid, "size": 1}]
    linux["gidMappings"] = [{"containerID": 0, "hostID": gid, "size": 1}]
    for key in ("resources", "cgroupsPath", "devices"):
        linux.pop(key, None)
    config["mounts"] = [m for m in config["mounts"] if m["type"] not in ("cgroup", "sysfs")]
    for m in config["mounts"]:
        if m["type"] == "devpts":
            m["options"] = [o for o in m["options"] if not o.startswith("gid=")]
    with open(os.path.join(a.bundle, "config.json"), "w") as f:
        json.dump(config, f, indent=1)


def run_rootless(a):
    """The runtime run by a user made for this run, on a rootless bundle:
    the attack must report and the runtime end as the container did (a
    supervisor that ended on the way is an escape: the sandbox's audit and
    mediation are gone)."""
    user = "vsec-rl-%d" % os.getpid()
    if subprocess.run(["useradd", "--no-create-home", "--shell", "/bin/false", user],
                      capture_output=True).returncode != 0:
        return "ERROR", "useradd %s failed" % user
    try:
        uid, gid = int(subprocess.check_output(["id", "-u", user])), int(
            subprocess.check_output(["id", "-g", user]))
        a.write_config()
        rootless_config(a, uid, gid)
        # The runtime and a state root where the user may reach them.
        binary = os.path.join(a.tmp, os.path.basename(a.runtime[0]))
        subprocess.run(["cp", os.path.realpath(a.runtime[0]), binary], check=True)
        os.chmod(binary, 0o755)
        root = os.path.join(a.tmp, "user-root")
        os.makedirs(root, mode=0o700)
        os.chown(root, uid, gid)
        argv = ["setpriv", "--reuid=%d" % uid, "--regid=%d" % gid, "--init-groups",
                "env", "-i", "PATH=/usr/bin:/bin", "HOME=" + root, binary] + list(a.runtime[1:]) + [
                    "--root", root, "run", "--bundle", a.bundle,
                    # Not a.new_id(): ids hold the host secret's token,
                    # and a user's runtime names its container in warnings.
                    "vsec-rootless-%d" % os.getpid()]
        try:
            r = subprocess.run(argv, capture_output=True, timeout=60, cwd=a.tmp)
            rc, output = r.returncode, r.stdout.decode(errors="replace") + r.stderr.decode(
                errors="replace")
        except subprocess.TimeoutExpired:
            rc, output = None, ""
        d = parse_line(output, a.attack)
        if d is None:
            return "ESCAPED", "no result; the runtime exited %s: %s" % (rc, one_line(output)), output
        if rc != 0:
            return "ESCAPED", d["detail"] + "; but the runtime exited %s (its supervisor ended)" % rc, output
        return d["result"], d["detail"], output
    finally:
        subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)
        time.sleep(0.2)
        subprocess.run(["userdel", user], capture_output=True)


RUNNERS = {"rootless-unix-ipc": run_rootless, "fifo-starvation": run_starvation, "cwd-check": run_cwd, "exe-overwrite": run_exe, "audit-flood": run_flood,
           "exec-tty-inject": run_tty_exec, "deputy-dev-tty": run_tty_run}
