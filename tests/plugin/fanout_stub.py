"""Issue 25, for the stub model: the plugin's fan-outs run as the host's own ``Workflow``.

Pieces a scripted model uses with :class:`stub_api.StubAPI`:

- :func:`fanout_marker` finds which agent of which fan-out a request belongs to, from the marker
  line ``[agents-state fanout <id> agent <key>]`` the engine puts at the start of every agent's
  prompt.  A workflow agent's first user message is NOT the prompt alone: the host puts a
  "[Workflow harness — computed task] ..." preface before it and indents every line of it by two
  spaces (claude 2.1.330), so the marker is searched for at the start of any line.
- :class:`FanoutAgents` answers those agents: a ``StructuredOutput`` call (its input schema is the
  script's ``schema`` verbatim) when the request offers that tool, else a fenced JSON (or plain
  text) answer; it can answer a key wrongly first, hold a key's requests until released (to kill
  the host mid-fan-out), and counts the requests of every key.
- :func:`workflow_call` is the ``Workflow`` tool call exactly as ``agents-state next --json``
  prints it (key ``"workflow"``); :func:`notification` reads the ``<task-notification>`` that
  brings back the script's result.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stub_api import Block, request_text, tool_results

__all__ = [
    "AgentCall",
    "FanoutAgents",
    "Notice",
    "fanout_marker",
    "notification",
    "opening_texts",
    "structured_errors",
    "wait_for",
    "workflow_call",
]

MARKER = re.compile(r"^[ \t]*\[agents-state fanout (\S+) agent (\S+)\][ \t]*$", re.MULTILINE)
HARNESS = "[Workflow harness"
AGENT_HEADERS = {
    "# Explore agent": "explore",
    "# Plan agent": "plan",
    "# Task agent": "task",
    "# PR reviewer": "reviewer",
}


def _first_user_text(body: dict[str, Any]) -> str:
    for message in body.get("messages") or []:
        if message.get("role") == "user":
            return request_text({"messages": [message]})
    return ""


def opening_texts(body: dict[str, Any]) -> list[str]:
    """The text blocks of the user messages before the first answer: the host may put a
    ``<system-reminder>`` block of its own before the prompt's block."""
    out: list[str] = []
    for message in body.get("messages") or []:
        if message.get("role") == "assistant":
            break
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [
                b.get("text", "")
                for b in content
                if isinstance(b, dict) and b.get("type") == "text"
            ]
    return out


def fanout_marker(body: dict[str, Any]) -> tuple[str, str] | None:
    """(fan-out id, agent key) of a fan-out agent's request, else None.

    The marker counts only as the prompt's own first line: at the very start of a text block of
    the opening user message (an Agent call's prompt), or as the first line after the workflow
    harness preface.  Anywhere else (a next action quoted in the main conversation) it is not an
    agent's prompt.
    """
    for text in opening_texts(body):
        if text.startswith(HARNESS):
            _head, _sep, text = text.partition("\n")
        match = MARKER.match(text.lstrip("\n"))
        if match:
            return match.group(1), match.group(2)
    return None


@dataclass
class AgentCall:
    """One request of one fan-out agent, as the answer callbacks see it."""

    fanout: str
    key: str
    kind: str  # explore | plan | task | reviewer | "" (by the agent file's header)
    body: dict[str, Any]
    tools: dict[str, dict[str, Any]]
    results: dict[str, str]  # tool_use_id -> text of the results since the last answer
    number: int  # 1 for the key's first request

    @property
    def schema(self) -> dict[str, Any] | None:
        tool = self.tools.get("StructuredOutput")
        return None if tool is None else dict(tool.get("input_schema") or {})

    @property
    def prompt(self) -> str:
        return _first_user_text(self.body)


Answer = Callable[[AgentCall], Any]  # the agent's answer: a dict (a handoff) or text
Steps = Callable[[AgentCall], list[Block] | None]  # tool calls before it answers, or None
Identify = Callable[[dict[str, Any]], "tuple[str, str] | None"]  # (fan-out, key) of a request


@dataclass
class FanoutAgents:
    """The fan-out agents of a scripted model.  Call it with a request body: it returns the
    reply blocks for a fan-out agent's request and None for any other request."""

    answer: Answer
    steps: Steps | None = None
    identify: Identify = fanout_marker  # an Agent-call path's own prompts may be told apart too
    wrong_first: set[str] = field(default_factory=set)  # keys whose first StructuredOutput is wrong
    wrong: dict[str, Any] = field(default_factory=dict)  # that wrong input ({}: misses required)
    always_wrong: set[str] = field(default_factory=set)  # keys that never answer rightly
    counts: Counter[str] = field(default_factory=Counter)  # requests per key
    by_fanout: Counter[tuple[str, str]] = field(default_factory=Counter)  # per (fan-out, key)
    answered: list[str] = field(default_factory=list)  # keys in the order they gave a final answer
    structured: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # inputs per key
    lock: threading.Lock = field(default_factory=threading.Lock)
    _held: dict[str, threading.Event] = field(default_factory=dict)
    _held_from: dict[str, int] = field(default_factory=dict)
    _arrived: dict[str, threading.Event] = field(default_factory=dict)

    def hold(self, key: str, at: int = 1) -> None:
        """Requests of ``key`` from its ``at``-th on wait until :meth:`release` (the host is
        killed meanwhile)."""
        self._held[key] = threading.Event()
        self._held_from[key] = at

    def release(self) -> None:
        """Let every held request go, and hold no more."""
        for event in self._held.values():
            event.set()
        self._held.clear()

    def arrived(self, key: str) -> bool:
        """Whether a request of ``key`` has reached the stub."""
        return self.counts[key] > 0

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        found = self.identify(body)
        if found is None:
            return None
        fanout, key = found
        system = request_text({"system": body.get("system")})
        kind = next((k for h, k in AGENT_HEADERS.items() if h in system), "")
        with self.lock:
            self.counts[key] += 1
            self.by_fanout[fanout, key] += 1
            number = self.counts[key]
        held = self._held.get(key)
        if held is not None and number >= self._held_from.get(key, 1):
            held.wait()
            return [{"type": "text", "text": "released after the test"}]
        call = AgentCall(
            fanout=fanout,
            key=key,
            kind=kind,
            body=body,
            tools={t["name"]: t for t in body.get("tools") or [] if "name" in t},
            results=tool_results(body),
            number=number,
        )
        if self.steps is not None:
            blocks = self.steps(call)
            if blocks:
                return blocks
        answer = self.answer(call)
        if call.schema is not None:
            with self.lock:
                sent = self.structured.setdefault(key, [])
                wrong = key in self.always_wrong or (key in self.wrong_first and not sent)
                value = dict(self.wrong) if wrong else answer
                sent.append(value)
                if value is answer:
                    self.answered.append(key)
            return [{"type": "tool_use", "name": "StructuredOutput", "input": value}]
        with self.lock:
            self.answered.append(key)
        if isinstance(answer, str):
            return [{"type": "text", "text": answer}]
        return [
            {"type": "text", "text": "Done.\n\n```json\n" + json.dumps(answer, indent=2) + "\n```"}
        ]


def structured_errors(body: dict[str, Any]) -> list[str]:
    """The error tool results the host sent back for the agent's last StructuredOutput call."""
    out: list[str] = []
    for message in (body.get("messages") or [])[-1:]:
        content = message.get("content")
        if isinstance(content, list):
            out += [
                request_text({"messages": [{"content": b.get("content")}]})
                for b in content
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error")
            ]
    return out


def workflow_call(action: dict[str, Any]) -> Block:
    """The Workflow tool call, exactly as ``agents-state next --json`` prints it."""
    call = action["workflow"]
    return {
        "type": "tool_use",
        "name": "Workflow",
        "input": {"name": call["name"], "args": call["args"]},
    }


@dataclass
class Notice:
    """A ``<task-notification>`` of the host: a finished background task (workflow or agent)."""

    task_id: str
    tool_use_id: str
    status: str
    result: Any  # the workflow's return value (parsed JSON), else its text
    failures: str
    text: str


def _tag(text: str, name: str) -> str:
    match = re.search(rf"<{name}>(.*?)</{name}>", text, re.DOTALL)
    return match.group(1) if match else ""


def notification(body: dict[str, Any]) -> list[Notice]:
    """The task notifications in the last user message of a main-conversation request."""
    messages = body.get("messages") or [{}]
    text = request_text({"messages": messages[-1:]})
    out: list[Notice] = []
    for chunk in re.findall(r"<task-notification>.*?</task-notification>", text, re.DOTALL):
        raw = _tag(chunk, "result")
        try:
            result: Any = json.loads(raw)
        except ValueError:
            result = raw
        out.append(
            Notice(
                task_id=_tag(chunk, "task-id"),
                tool_use_id=_tag(chunk, "tool-use-id"),
                status=_tag(chunk, "status"),
                result=result,
                failures=_tag(chunk, "failures"),
                text=chunk,
            )
        )
    return out


def wait_for(check: Callable[[], bool], what: str, limit: float = 900.0) -> None:
    """Wait until ``check()`` holds.  The limit only keeps a broken run from hanging the suite;
    nothing is asserted about how long it took."""
    end = time.monotonic() + limit
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.1)
