"""A blocking WebSocket client (RFC 6455) on the standard library alone: what the thin
path of `clawharness agent` (`via_serve`) talks to a running `serve` with.

Text frames only, client frames masked, no extensions (the gateway offers none unless
asked). Pings are answered; a close frame ends the connection. The `websockets` package
(or asyncio) would cost more to import than the whole turn takes to send.
"""

from __future__ import annotations

import base64
import os
import socket
import struct

__all__ = ["WsClosed", "WsConnection"]

#: the largest response head accepted before the upgrade
_HEAD_LIMIT = 64 * 1024
#: the largest message accepted (a turn's result with a long reply fits many times over)
_MESSAGE_LIMIT = 64 * 1024 * 1024


class WsClosed(ConnectionError):
    """The connection ended (closed by the server, or the socket went away)."""


def _split_url(url: str) -> tuple[str, int, str]:
    if not url.startswith("ws://"):
        raise ValueError(f"not a ws:// URL: {url}")
    rest = url[len("ws://"):]
    authority, slash, path = rest.partition("/")
    if authority.startswith("["):
        host, _, port_text = authority[1:].partition("]")
        port_text = port_text.lstrip(":")
    else:
        host, _, port_text = authority.partition(":")
    return host, int(port_text or 80), "/" + path if slash else "/"


class WsConnection:
    """One open connection."""

    def __init__(self, sock: socket.socket, buffered: bytes = b"") -> None:
        self.sock = sock
        self._buf = buffered
        self.closed = False

    @classmethod
    def open(cls, url: str, *, timeout: float) -> WsConnection:
        """Connect and upgrade; OSError (refused, timed out) or WsClosed when refused."""
        host, port, path = _split_url(url)
        sock = socket.create_connection((host, port), timeout=timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            key = base64.b64encode(os.urandom(16)).decode()
            shown = f"[{host}]" if ":" in host else host
            sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {shown}:{port}\r\n"
                          "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                          ).encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(4096)
                if not chunk or len(head) > _HEAD_LIMIT:
                    raise WsClosed("the server did not upgrade the connection")
                head += chunk
            head, _, rest = head.partition(b"\r\n\r\n")
            status_line = head.split(b"\r\n", 1)[0]
            status = status_line.split()
            if len(status) < 2 or status[1] != b"101":
                raise WsClosed(f"the server answered {status_line!r}")
        except BaseException:
            sock.close()
            raise
        return cls(sock, rest)

    def settimeout(self, seconds: float | None) -> None:
        self.sock.settimeout(seconds)

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        size = len(payload)
        if size < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        mask = os.urandom(4)
        if size:
            repeated = (mask * (size // 4 + 1))[:size]
            payload = (int.from_bytes(payload, "big")
                       ^ int.from_bytes(repeated, "big")).to_bytes(size, "big")
        self.sock.sendall(head + mask + payload)

    def send_text(self, text: str) -> None:
        if self.closed:
            raise WsClosed("the connection is closed")
        self._send_frame(0x1, text.encode())

    def _read(self, count: int) -> bytes:
        while len(self._buf) < count:
            chunk = self.sock.recv(max(65536, count - len(self._buf)))
            if not chunk:
                self.closed = True
                raise WsClosed("the server closed the connection")
            self._buf += chunk
        data, self._buf = self._buf[:count], self._buf[count:]
        return data

    def recv_text(self) -> str:
        """The next text (or binary) message; WsClosed when the connection ends."""
        parts: list[bytes] = []
        total = 0
        while True:
            first, second = self._read(2)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", self._read(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", self._read(8))
            mask = self._read(4) if second & 0x80 else b""
            if size > _MESSAGE_LIMIT:
                raise WsClosed(f"a message of {size} bytes is over the limit")
            payload = self._read(size) if size else b""
            if mask:
                repeated = (mask * (size // 4 + 1))[:size]
                payload = (int.from_bytes(payload, "big")
                           ^ int.from_bytes(repeated, "big")).to_bytes(size, "big")
            if opcode == 0x8:  # close: answer it and end
                self.close()
                raise WsClosed("the server closed the connection")
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:  # pong
                continue
            parts.append(payload)
            total += size
            if total > _MESSAGE_LIMIT:
                raise WsClosed("a message is over the limit")
            if first & 0x80:  # FIN: the message is whole
                return b"".join(parts).decode("utf-8", errors="replace")

    def close(self) -> None:
        if self.closed:
            self.sock.close()
            return
        self.closed = True
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        finally:
            self.sock.close()
