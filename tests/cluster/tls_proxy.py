"""A TLS front for the Temporal dev server, which speaks only plaintext: certificates
from a throwaway CA (made with the `openssl` command), and a proxy on loopback that
terminates TLS (HTTP/2 by ALPN, optionally requiring a client certificate) and pipes the
bytes to the dev server. Clients connect to it as to a TLS-only Temporal frontend."""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Certificates", "TlsProxy", "make_certificates"]


@dataclass(frozen=True)
class Certificates:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    #: a CA that signed none of these
    stranger_ca: Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _leaf(root: Path, name: str, *, ca: str, extensions: str) -> None:
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}",
             cwd=root)
    (root / f"{name}.ext").write_text(extensions)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
             "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext",
             cwd=root)


def make_certificates(root: Path) -> Certificates:
    root.mkdir(parents=True, exist_ok=True)
    for ca in ("ca", "stranger"):
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                 "-nodes", "-keyout", f"{ca}.key", "-out", f"{ca}.pem", "-days", "2",
                 "-subj", f"/CN={ca} test CA", cwd=root)
    _leaf(root, "server", ca="ca", extensions=(
        "subjectAltName=DNS:temporal.test,IP:127.0.0.1\n"
        "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"))
    _leaf(root, "client", ca="ca", extensions=(
        "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n"))
    return Certificates(ca=root / "ca.pem", server_cert=root / "server.pem",
                        server_key=root / "server.key", client_cert=root / "client.pem",
                        client_key=root / "client.key", stranger_ca=root / "stranger.pem")


class TlsProxy:
    """TLS on `port`, plaintext to `upstream_port`, in a thread of its own."""

    def __init__(self, certs: Certificates, upstream_port: int, *,
                 require_client_cert: bool) -> None:
        self.upstream_port = upstream_port
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(certs.server_cert, certs.server_key)
        context.set_alpn_protocols(["h2"])
        if require_client_cert:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(certs.ca)
        self._context = context
        self.port = 0
        #: connections whose TLS handshake completed
        self.accepted = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> TlsProxy:
        self._thread.start()
        assert self._ready.wait(10), "the TLS proxy did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.set_exception_handler(self._quiet_refusals)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        server = self._loop.run_until_complete(asyncio.start_server(
            self._pipe, sock=sock, ssl=self._context, ssl_handshake_timeout=5))
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

    @staticmethod
    def _quiet_refusals(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        """A refused handshake is what some tests are about, not a proxy failure."""
        if not isinstance(context.get("exception"), ssl.SSLError | ConnectionError):
            loop.default_exception_handler(context)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)

        async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while chunk := await src.read(65536):
                    dst.write(chunk)
                    await dst.drain()
            except (ConnectionError, ssl.SSLError):
                pass
            finally:
                dst.close()

        await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))
