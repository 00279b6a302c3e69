"""Codex reviews (issue 37), the pure part: the schema Codex must answer in, the prompt, reading
``codex exec --json``'s events, turning the answer into the review artifact, and its usage.

``agents_state.codexrun`` runs the process and records the result; nothing here touches a file
or a process.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from agents_state.engine.review import SEVERITIES, severity_counts
from agents_state.errors import CodexError, InvalidInputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agents_state.config import Config
    from agents_state.engine.decision import Decision

__all__ = [
    "MIN_VERSION",
    "REVIEW_SCHEMA",
    "Run",
    "artifact_from",
    "codex_args",
    "codex_step",
    "failure",
    "is_codex",
    "parse_version",
    "read_events",
    "review_prompt",
    "usage_tokens",
]

MIN_VERSION = (0, 154, 0)  # `codex exec --output-schema`, and no `codex mcp-server` any more

_NULLABLE = {"type": ["string", "null"]}
# Strict structured output (Codex sends the schema with "strict": true): every property is
# required and no other is allowed; a value without meaning is null, and is dropped before the
# answer is checked as a review artifact (engine.review).
REVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["issues", "summary"],
    "properties": {
        "issues": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["severity", "title", "description", "file", "line", "suggestion"],
                "properties": {
                    "severity": {"type": "string", "enum": list(SEVERITIES)},
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "file": _NULLABLE,
                    "line": {"type": ["integer", "null"]},
                    "suggestion": _NULLABLE,
                },
            },
        },
        "summary": {"type": "string"},
    },
}


def is_codex(model: str) -> bool:
    return model.startswith("codex-")


def codex_step(d: Decision, config: Config, version: str | None) -> Decision:
    """A review step whose model is a ``codex-*`` alias: with Codex installed (``version``) the
    command is ``agents-state review run``, which writes the artifact itself; without, the step
    keeps ``phase complete`` and the words name the Claude reviewer to dispatch instead."""
    from agents_state.engine.decision import Decision

    assert d.phase is not None and d.agents is not None
    model, effort = config.codex.alias(d.agents["model"])
    agents = {**d.agents, "codex": {"model": model, "effort": effort, "installed": version}}
    facts = {**d.words[1], "agents": agents, "codex": version, "artifact": d.write}
    facts["phase"] = d.phase.id
    if version is None:
        return Decision(d.kind, d.phase, ("review", facts), d.command, d.read, d.write, agents)
    command = f"agents-state review run {d.phase.id}"
    return Decision(d.kind, d.phase, ("review", facts), command, d.read, None, agents, **d.extra)


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``codex-cli 0.171.0`` -> (0, 171, 0)."""
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def codex_args(schema: str, model: str | None, effort: str, prompt: str) -> list[str]:
    """The arguments after the ``codex`` binary."""
    args = ["exec", "--json", "--output-schema", schema, "-s", "read-only"]
    if model:
        args += ["-m", model]
    return [*args, "-c", f"model_reasoning_effort={effort}", "--skip-git-repo-check", prompt]


def review_prompt(
    *,
    phase: str,
    title: str,
    instructions: str,
    task: str,
    reads: list[str],
    where: str,
    severity: str,
    inline: list[tuple[str, str]] | None = None,
    retry_error: str | None = None,
) -> str:
    """``inline``: (name, text) of inputs that are not files (a database store's artifacts)."""
    files = "\n".join(f"- {r}" for r in reads)
    files += "".join(
        f"\n- {name}, whose text follows:\n{text}\n(end of {name})" for name, text in inline or []
    )
    files = files.strip("\n") or "- (none recorded; read the work itself)"
    text = (
        f"You are the reviewer of phase {phase} ({title}) of a software workflow.\n"
        f"The workflow's task: {task}\n"
        f"What to judge: {instructions}\n"
        f"Read these files first:\n{files}\n"
        f"The work is in the current folder ({where}); read whatever else you need there. Do "
        "not change anything.\n"
        "Answer with one JSON object matching the output schema: issues, each with a severity "
        f"({', '.join(SEVERITIES)}), a title, a description of what is wrong, the file and "
        "line (null when none) and a suggestion (or null), and a one-paragraph summary. Issues "
        f"of severity {severity} or above send the work back; an empty list of issues is a "
        "clean review."
    )
    if retry_error:
        text += (
            f"\nYour previous answer was not a valid review: {retry_error}. Answer again with "
            "JSON that matches the schema."
        )
    return text


class Run:
    """What ``codex exec --json`` said: its final message, its usage, the failure that ended it."""

    def __init__(self) -> None:
        self.thread: str | None = None
        self.message: str | None = None
        self.messages = 0
        self.usage: dict[str, int] = {}
        self.error: str | None = None
        self.fatal = False  # a failure that does not end by itself: stop the process now

    def feed(self, line: bytes | str) -> None:
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError:
            return  # a stray line of text: not an event
        if not isinstance(event, dict):
            return
        kind = event.get("type")
        if kind == "thread.started":
            self.thread = str(event.get("thread_id") or "") or None
        elif kind == "item.completed":
            item = event.get("item") or {}
            if isinstance(item, dict) and item.get("type") == "agent_message":
                self.message = str(item.get("text") or "")
                self.messages += 1
        elif kind == "turn.completed":
            for k, v in (event.get("usage") or {}).items():
                if isinstance(v, int):
                    self.usage[k] = self.usage.get(k, 0) + v
        elif kind == "turn.failed":
            err = event.get("error") or {}
            self.error = str(err.get("message") if isinstance(err, dict) else err)
        elif kind == "error":
            message = str(event.get("message") or "")
            if "waiting for network" in message:  # Codex would wait for ever
                self.error, self.fatal = message, True
            elif not message.startswith("Reconnecting..."):  # a retry may still succeed
                self.error = message


def read_events(out: bytes) -> Run:
    run = Run()
    for line in out.splitlines():
        if line.strip():
            run.feed(line)
    return run


_LOGIN = ("401", "unauthorized", "missing environment variable", "not logged in", "api key")
_NETWORK = ("waiting for network", "error sending request", "connection", "stream disconnected")


def failure(error: str, fallback: str) -> CodexError:
    """A failed turn as one line: not logged in, unreachable, or refused; then the fallback."""
    low = error.lower()
    if any(w in low for w in _LOGIN):
        kind, said = "login", "Codex is not logged in to its model API (run: codex login)"
    elif any(w in low for w in _NETWORK):
        kind, said = "unreachable", "Codex cannot reach its model API"
    else:
        kind, said = "refused", "Codex's model API refused the review"
    return CodexError(kind, f"{said}: {error.strip()}; nothing was recorded. {fallback}")


def artifact_from(message: str | None, reviewer: str, shown: str) -> bytes:
    """The review artifact from Codex's final message; ``InvalidInputError`` naming the field
    when it is not a review (engine.review's rules)."""
    if not message or not message.strip():
        raise InvalidInputError(shown, "", "Codex gave no final message")
    try:
        doc = orjson.loads(message)
    except orjson.JSONDecodeError as e:
        raise InvalidInputError(shown, "", f"not JSON ({e})") from None
    if isinstance(doc, dict) and isinstance(doc.get("issues"), list):
        doc["issues"] = [
            {k: v for k, v in i.items() if v is not None} if isinstance(i, dict) else i
            for i in doc["issues"]
        ]
    severity_counts(doc, shown)
    if isinstance(doc, dict):
        doc["reviewer"] = reviewer
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2)


def usage_tokens(usage: dict[str, int]) -> dict[str, int]:
    """Codex's ``turn.completed`` usage in the book's four kinds (``usage.book.KINDS``): its
    ``input_tokens`` count the cached ones, which the book keeps apart as ``cacheRead``; its
    ``output_tokens`` count the reasoning ones."""
    cached = usage.get("cached_input_tokens", 0)
    return {
        "input": max(0, usage.get("input_tokens", 0) - cached),
        "output": usage.get("output_tokens", 0),
        "cacheRead": cached,
        "cacheWrite": usage.get("cache_write_input_tokens", 0),
    }
