"""Run a command in a loopback-only network namespace, with one port forwarded out.

    python netns_exec.py PORT -- COMMAND [ARG...]

The command sees a fresh network namespace whose only interface is `lo`: nothing off the
machine is reachable (no DNS, no telemetry). Connections to 127.0.0.1:PORT inside are
forwarded to 127.0.0.1:PORT of the outer namespace, where the scripted model server
listens. A thread started before `unshare(CLONE_NEWNET)` stays in the outer namespace and
opens the outer connections; the main thread moves into the new one, listens there and
starts the command. Exits with the command's status. Needs root (CAP_SYS_ADMIN); with
`--probe` it only says whether that works (exit 0) or not (exit 3).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import queue
import signal
import socket
import struct
import subprocess
import sys
import threading

CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def _unshare_net() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        ifreq = struct.pack("16sH14s", b"lo", 0, b"\0" * 14)
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock, SIOCGIFFLAGS, ifreq))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP,
                                                    b"\0" * 14))


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--probe"]:
        try:
            _unshare_net()
            _loopback_up()
        except OSError:
            return 3
        return 0
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    port = int(argv[0])
    command = argv[2:]
    requests: queue.Queue[queue.Queue[socket.socket | None]] = queue.Queue()

    def outer() -> None:  # stays in the outer namespace
        while True:
            reply = requests.get()
            try:
                reply.put(socket.create_connection(("127.0.0.1", port)))
            except OSError:
                reply.put(None)

    threading.Thread(target=outer, daemon=True).start()
    _unshare_net()
    _loopback_up()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)

    def accept() -> None:
        while True:
            try:
                inner, _ = listener.accept()
            except OSError:
                return
            reply: queue.Queue[socket.socket | None] = queue.Queue()
            requests.put(reply)
            upstream = reply.get()
            if upstream is None:
                inner.close()
                continue
            threading.Thread(target=_pump, args=(inner, upstream), daemon=True).start()
            threading.Thread(target=_pump, args=(upstream, inner), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    child = subprocess.Popen(command)  # inherits stdio and the new namespace

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(OSError):
            child.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    # stdio belongs to the command now: our copies must not keep the pipes open
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    code = child.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
