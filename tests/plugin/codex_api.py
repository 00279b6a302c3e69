"""A loopback stand-in for the OpenAI Responses API, for driving the real ``codex`` CLI offline.

It listens on 127.0.0.1, records every request body, and answers ``POST /v1/responses`` with the
server-sent events of one reply whose text a script chooses: a callable that receives the request
body and returns the reply's text, an ``int`` (an HTTP error status, e.g. 401), or ``"hang"``
(the answer never comes: for timeouts).  ``home(tmp)`` writes a ``CODEX_HOME`` whose provider is
this server.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["USAGE", "CodexAPI", "codex_home", "request_text"]

Reply = str | int
Script = Callable[[dict[str, Any]], Reply]
USAGE = {
    "input_tokens": 1200,
    "input_tokens_details": {"cached_tokens": 200},
    "output_tokens": 300,
    "output_tokens_details": {"reasoning_tokens": 100},
    "total_tokens": 1500,
}
KEY_VAR = "AGENTS_STATE_TEST_CODEX_KEY"


def request_text(body: dict[str, Any]) -> str:
    """The instructions and every input text of one request."""
    parts = [str(body.get("instructions") or "")]
    for item in body.get("input") or []:
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, str):
            parts.append(content)
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
    return "\n".join(parts)


def codex_home(folder: Path, url: str) -> Path:
    """A CODEX_HOME whose model provider is the stand-in at ``url`` (…/v1)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        'model_provider = "stub"\n'
        "[model_providers.stub]\n"
        'name = "stub"\n'
        f'base_url = "{url}"\n'
        'wire_api = "responses"\n'
        f'env_key = "{KEY_VAR}"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )
    return folder


class CodexAPI:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._stop = threading.Event()
        self.hanging = 0  # requests answered "hang" and still held open
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # /models and the like: nothing to offer
                self._send(404, b"{}", "application/json")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                if not self.path.rstrip("/").endswith("/responses"):
                    self._send(404, b"{}", "application/json")
                    return
                api.requests.append(body)
                reply = api.script(body)
                if reply == "hang":
                    api.hanging += 1  # until the stand-in stops: a run that waits, hangs
                    api._stop.wait(600)
                    api.hanging -= 1
                    return
                if isinstance(reply, int):
                    error = {"error": {"message": "stand-in refuses", "type": "invalid_request"}}
                    self._send(reply, json.dumps(error).encode(), "application/json")
                    return
                self._send(200, api.events(body, reply), "text/event-stream")

            def _send(self, status: int, data: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> CodexAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()

    def events(self, body: dict[str, Any], text: str) -> bytes:
        n = next(self._ids)
        rid, mid = f"resp_{n}", f"msg_{n}"
        item: dict[str, Any] = {
            "type": "message",
            "id": mid,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        started: dict[str, Any] = {**item, "status": "in_progress", "content": []}
        response: dict[str, Any] = {
            "id": rid,
            "object": "response",
            "model": body.get("model"),
            "output": [],
        }
        out: list[tuple[str, dict[str, Any]]] = [
            ("response.created", {"response": {**response, "status": "in_progress"}}),
            ("response.output_item.added", {"output_index": 0, "item": started}),
            (
                "response.output_text.delta",
                {"item_id": mid, "output_index": 0, "content_index": 0, "delta": text},
            ),
            ("response.output_item.done", {"output_index": 0, "item": item}),
            (
                "response.completed",
                {"response": {**response, "status": "completed", "output": [item], "usage": USAGE}},
            ),
        ]
        return b"".join(
            f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()
            for kind, data in out
        )
