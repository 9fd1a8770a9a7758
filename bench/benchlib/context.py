"""What every workload gets: the runtimes, a scratch directory, the round
counts of this mode, and one place to record samples and problems."""

import os
import time


class Context:
    def __init__(self, runtimes, scratch, quick, probe, busybox, log, mediated=(),
                 seccomp_peers=()):
        self.runtimes = runtimes
        # vigil under a policy that mediates files: an extra column for the
        # workloads where that path shows (python, syscalls).
        self.mediated = list(mediated)
        # runc and vigil with Docker's seccomp profile: the fast path's
        # peers (syscalls).
        self.seccomp_peers = list(seccomp_peers)
        self.scratch = scratch
        self.quick = quick
        self.probe = probe
        self.busybox = busybox
        self.log = log
        # samples[workload][metric] = {"unit": ..., "better": "lower"|"higher",
        #                              "what": ..., "values": {runtime: [..]}}
        self.samples = {}
        self.problems = []   # one line each: what failed, with which runtime
        self.notes = {}      # workload -> [lines] for the report
        self._counter = 0

    def new_id(self, tag):
        self._counter += 1
        return f"vb{os.getpid()}-{tag}-{self._counter}"

    def path(self, *parts):
        p = os.path.join(self.scratch, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def metric(self, workload, metric, unit, what, better="lower"):
        w = self.samples.setdefault(workload, {})
        return w.setdefault(metric, {"unit": unit, "better": better, "what": what, "values": {}})

    def add(self, workload, metric, runtime, value, unit, what="", better="lower"):
        m = self.metric(workload, metric, unit, what, better)
        m["values"].setdefault(runtime, []).append(value)

    def problem(self, workload, runtime, message):
        line = f"{workload}: {runtime}: {message}"
        if line not in self.problems:
            self.problems.append(line)
        self.log(f"  ! {line}")

    def note(self, workload, line):
        self.notes.setdefault(workload, []).append(line)

    def rounds(self, quick, full):
        return quick if self.quick else full

    def interleaved(self, rounds, runtimes=None):
        """(round, runtime) pairs, A B C A B C ..., the order rotated each round
        so no runtime always runs right after the same neighbour."""
        rts = list(runtimes if runtimes is not None else self.runtimes)
        for r in range(rounds):
            k = r % len(rts) if rts else 0
            for rt in rts[k:] + rts[:k]:
                yield r, rt


def now_stamp():
    return time.strftime("%Y%m%d-%H%M%S")
