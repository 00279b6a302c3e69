"""A TCP relay to the test server that stops answering on cue (issue 23's silent server).

It passes bytes both ways until the client sends one holding ``silent_after`` (a piece of SQL,
``b""`` for "from the first byte"); from then on it reads what the client sends and forwards
nothing back: the connection stays open and the server seems to hang, as one stopped with
SIGSTOP, or behind a network that drops its answers, would.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
from collections.abc import Iterator


class SilentProxy:
    def __init__(self, port: int, silent_after: bytes | None) -> None:
        self.target = port
        self.silent_after = silent_after
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.silenced = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._socks: list[socket.socket] = []

    def __enter__(self) -> SilentProxy:
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for s in [self.listener, *self._socks]:
            with contextlib.suppress(OSError):
                s.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self._socks.append(client)
            t = threading.Thread(target=self._relay, args=(client,), daemon=True)
            t.start()
            self._threads.append(t)

    def _relay(self, client: socket.socket) -> None:
        server = None
        if self.silent_after != b"":
            server = socket.create_connection(("127.0.0.1", self.target))
            self._socks.append(server)
        seen = b""
        with contextlib.suppress(OSError):
            for chunk, from_client in self._chunks(client, server):
                if not chunk:
                    return
                if from_client:
                    seen = (seen + chunk)[-4096:]
                    if self.silent_after is not None and self.silent_after in seen:
                        self.silenced.set()
                    if server is not None:
                        server.sendall(chunk)
                elif not self.silenced.is_set():
                    client.sendall(chunk)
        if self.silent_after == b"":
            self.silenced.set()

    def _chunks(
        self, client: socket.socket, server: socket.socket | None
    ) -> Iterator[tuple[bytes, bool]]:
        socks = [client] if server is None else [client, server]
        while not self._stop.is_set():
            ready, _, _ = select.select(socks, [], [], 0.2)
            for s in ready:
                yield s.recv(65536), s is client
