"""A seccomp agent for the conformance cases (runtime-spec config-linux.md,
"listenerPath"): it listens on a unix socket, takes each listener a runtime
sends with its containerProcessState, and answers the notified syscalls: the
ones named in `refuse` with an errno, the rest by letting them run
(SECCOMP_USER_NOTIF_FLAG_CONTINUE). Written against the kernel's ABI
(seccomp_unotify(2)), x86_64, so that it needs nothing but Python."""

import errno
import fcntl
import json
import os
import select
import socket
import struct
import threading

# struct seccomp_notif: id u64, pid u32, flags u32, then seccomp_data
# (nr s32, arch u32, instruction_pointer u64, args u64[6]): 80 bytes.
# struct seccomp_notif_resp: id u64, val s64, error s32, flags u32.
NOTIF_SIZE = 80
IOCTL_NOTIF_RECV = 0xC0502100  # _IOWR('!', 0, struct seccomp_notif)
IOCTL_NOTIF_SEND = 0xC0182101  # _IOWR('!', 1, struct seccomp_notif_resp)
FLAG_CONTINUE = 1

# The x86_64 numbers of the syscalls the cases name.
SYSCALL_NUMBERS = {"mkdir": 83, "mkdirat": 258, "chmod": 90, "fchmodat": 268}


class Agent:
    def __init__(self, path, refuse=(), answer=errno.ENOMEDIUM):
        self.path = path
        self.refuse = {SYSCALL_NUMBERS[name] for name in refuse}
        self.answer = answer
        self.states = []  # each containerProcessState received, parsed
        self.fds_received = []  # how many descriptors came with each
        self.answered = []  # (pid, syscall number) of each refused call
        self.errors = []
        self._stop = threading.Event()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(path)
        self._server.listen(8)
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def stop(self):
        self._stop.set()
        self._server.close()
        for t in self._threads:
            t.join(5)

    def _accept(self):
        while not self._stop.is_set():
            ready, _, _ = select.select([self._server], [], [], 0.1)
            if not ready:
                continue
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            with conn:
                try:
                    msg, fds, _, _ = socket.recv_fds(conn, 65536, 4)
                except OSError as e:
                    self.errors.append("recv_fds: %s" % e)
                    continue
            self.fds_received.append(len(fds))
            try:
                self.states.append(json.loads(msg))
            except ValueError as e:
                self.errors.append("state is not JSON (%s): %r" % (e, msg[:200]))
            if not fds:
                continue
            for extra in fds[1:]:
                os.close(extra)
            t = threading.Thread(target=self._serve, args=(fds[0],), daemon=True)
            self._threads.append(t)
            t.start()

    def _serve(self, listener):
        poller = select.poll()
        poller.register(listener, select.POLLIN)
        try:
            while not self._stop.is_set():
                events = poller.poll(100)
                if not events:
                    continue
                if events[0][1] & select.POLLHUP:  # no process uses the filter
                    return
                buf = bytearray(NOTIF_SIZE)
                try:
                    fcntl.ioctl(listener, IOCTL_NOTIF_RECV, buf)
                except OSError as e:
                    if e.errno in (errno.EINTR, errno.ENOENT):
                        continue
                    self.errors.append("NOTIF_RECV: %s" % e)
                    return
                notif_id, pid, _, nr = struct.unpack_from("<QIIi", buf)
                if nr in self.refuse:
                    self.answered.append((pid, nr))
                    resp = struct.pack("<QqiI", notif_id, -1, -self.answer, 0)
                else:
                    resp = struct.pack("<QqiI", notif_id, 0, 0, FLAG_CONTINUE)
                try:
                    fcntl.ioctl(listener, IOCTL_NOTIF_SEND, bytearray(resp))
                except OSError as e:
                    if e.errno != errno.ENOENT:  # the caller went away
                        self.errors.append("NOTIF_SEND: %s" % e)
        finally:
            os.close(listener)
