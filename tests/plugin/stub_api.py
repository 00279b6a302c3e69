"""A small stand-in for the Anthropic Messages API, for driving the real ``claude`` CLI offline.

It listens on 127.0.0.1, records every request body it is sent, and answers ``POST /v1/messages``
with a reply chosen by a script: a callable that receives the request body and returns a list of
content blocks (``{"type": "text", ...}`` or ``{"type": "tool_use", ...}``), or ``None`` for a
plain "OK" text reply.  Replies are streamed as server-sent events when the request asks for it.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Block = dict[str, Any]
Script = Callable[[dict[str, Any]], list[Block] | None]
# the usage of reply number n (from 1) to a request body; the default is the same for every reply
Usage = Callable[[int, dict[str, Any]], dict[str, int]]
FLAT_USAGE = {
    "input_tokens": 10,
    "output_tokens": 10,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}

__all__ = ["FLAT_USAGE", "StubAPI", "Usage", "request_text", "tool_results"]


def request_text(body: dict[str, Any]) -> str:
    """Everything the model would read in one request: system prompt and all messages, as text."""
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts.extend(b.get("text", "") for b in system if isinstance(b, dict))
    for message in body.get("messages", []):
        parts.append(_content_text(message.get("content")))
    return "\n".join(parts)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            out.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            out.append(_content_text(block.get("content")))
        elif block.get("type") == "tool_use":
            out.append(json.dumps(block.get("input", {})))
    return "\n".join(out)


def tool_results(body: dict[str, Any]) -> dict[str, str]:
    """tool_use_id -> text of each tool result since the last assistant message (the host may
    add a reminder as a user message of its own after the results)."""
    out: dict[str, str] = {}
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "assistant":
            break
        content = message.get("content")
        if isinstance(content, list):
            out.update(
                {
                    b["tool_use_id"]: _content_text(b.get("content"))
                    for b in content
                    if isinstance(b, dict) and b.get("type") == "tool_result"
                }
            )
    return out


class StubAPI:
    """Run with ``with StubAPI(script) as api: ... api.url ... api.requests``."""

    def __init__(self, script: Script | None = None, usage: Usage | None = None) -> None:
        self.script: Script = script or (lambda body: None)
        self.usage: Usage = usage or (lambda n, body: dict(FLAT_USAGE))
        self.requests: list[dict[str, Any]] = []
        self.other_requests: list[str] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)
        return f"http://{host}:{port}"

    def __enter__(self) -> StubAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reply(self, body: dict[str, Any]) -> list[Block]:
        with self._lock:
            self.requests.append(body)
        try:
            blocks = self.script(body)
        except Exception as e:  # a broken script must show up in the test, not hang the CLI
            blocks = [{"type": "text", "text": f"stub script error: {e!r}"}]
        return blocks or [{"type": "text", "text": "OK"}]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                stub.other_requests.append(f"GET {self.path}")
                self._json(
                    404, {"type": "error", "error": {"type": "not_found_error", "message": "stub"}}
                )

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                path = self.path.split("?", 1)[0]
                if path.endswith("/count_tokens"):
                    self._json(200, {"input_tokens": max(1, len(raw) // 4)})
                    return
                if not path.endswith("/v1/messages"):
                    stub.other_requests.append(f"POST {self.path}")
                    self._json(
                        404,
                        {"type": "error", "error": {"type": "not_found_error", "message": "stub"}},
                    )
                    return
                body = json.loads(raw or b"{}")
                blocks = stub.reply(body)
                message = stub._message(body, blocks)
                if body.get("stream"):
                    self._stream(message)
                else:
                    self._json(200, message)

            def _json(self, code: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, message: dict[str, Any]) -> None:
                chunks = b"".join(_sse(name, data) for name, data in _events(message))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(chunks)))
                self.end_headers()
                self.wfile.write(chunks)

        return Handler

    def _message(self, body: dict[str, Any], blocks: list[Block]) -> dict[str, Any]:
        n = next(self._ids)
        content = []
        for i, block in enumerate(blocks):
            if block.get("type") == "tool_use":
                block = {"id": f"toolu_stub_{n}_{i}", **block}
            content.append(block)
        uses_tool = any(b["type"] == "tool_use" for b in content)
        return {
            "id": f"msg_stub_{n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-stub"),
            "content": content,
            "stop_reason": "tool_use" if uses_tool else "end_turn",
            "stop_sequence": None,
            # a script may say how full the conversation is (issue 27)
            "usage": self.usage(n, body) | getattr(self.script, "usage_override", {}),
        }


def _sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _events(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    head = {**message, "content": [], "stop_reason": None}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": head})
    ]
    for i, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": i}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events
