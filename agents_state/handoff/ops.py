"""The handoff operations the CLI and the hooks run: read, validate, record, aggregate, build.

The imperative shell around the pure handoff modules: it reads input bytes, takes the clock, and
goes through ``App`` / ``Store`` for every state change (under the lock, on a fresh re-read).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from agents_state.handoff.aggregate import aggregate
from agents_state.handoff.protocol import parse_handoff
from agents_state.handoff.reduce import Handoff
from agents_state.models import State
from agents_state.workflow import get_phase

if TYPE_CHECKING:
    from agents_state.engine.context import Outcome
    from agents_state.policy import Policy
    from agents_state.store.api import WorkflowStore

__all__ = ["aggregate_texts", "decode_text", "read_source", "record", "validate"]


def read_source(source: str, stdin: bytes | None = None) -> tuple[str, str]:
    """(text, shown name) of a file argument; ``-`` is ``stdin``."""
    if source == "-":
        return decode_text(stdin or b"", "<stdin>"), "<stdin>"
    from agents_state.jsonio import read_input_bytes

    return decode_text(read_input_bytes(Path(source), source), source), source


def decode_text(data: bytes, shown: str) -> str:
    from agents_state.errors import InvalidInputError

    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInputError(shown, "", f"not UTF-8 text (byte {e.start})") from None


def validate(text: str, shown: str, kind: str = "auto") -> Handoff:
    return parse_handoff(text, shown, kind)


def aggregate_texts(items: list[tuple[str, str]], kind: str = "auto") -> Handoff:
    """Validate every response (all problems of all files reported) and aggregate them."""
    from agents_state.handoff.protocol import HandoffInvalidError

    handoffs: list[Handoff] = []
    errors: list[HandoffInvalidError] = []
    for text, shown in items:
        try:
            handoffs.append(parse_handoff(text, shown, kind))
        except HandoffInvalidError as e:
            errors.append(e)
    if errors:
        if len(errors) == 1:
            raise errors[0]
        from agents_state.errors import InvalidInputError

        raise InvalidInputError(
            f"{len(errors)} of {len(items)} responses", "", " | ".join(e.message for e in errors)
        )
    requests = [h for h in handoffs if h.is_request]
    if requests:
        from agents_state.errors import UsageError

        raise UsageError(
            f"aggregate takes responses; a request was given (task {requests[0].task_id})"
        )
    return aggregate(handoffs)


def _artifact(h: Handoff, phase_id: str) -> bytes:
    spec = get_phase(phase_id)
    if spec.is_json:
        issues = [{"severity": "high", "description": f} for f in (h.failures or h.issues)]
        doc = {"decision": h.decision, "issues": issues, "summary": h.summary, "handoff": h.data}
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    lines = [f"# {spec.id} {spec.name}", "", f"Decision: {h.decision}", ""]
    if h.summary:
        lines += ["## Summary", "", h.summary, ""]
    if h.issues:
        lines += ["## Issues", "", *[f"- {i}" for i in h.issues], ""]
    if h.findings:
        lines += [
            "## Findings",
            "",
            "```json",
            orjson.dumps(h.findings, option=orjson.OPT_INDENT_2).decode(),
            "```",
            "",
        ]
    return "\n".join(lines).encode()


def record(
    store: WorkflowStore,
    policy: Policy,
    h: Handoff,
    *,
    task: str | None = None,
    phase: str | None = None,
    agent: str | None = None,
    own_task_only: bool = False,
    sender_prompt: str = "",
) -> Outcome:
    """Apply ``h`` to the workflow in ``store`` under its lock; returns the engine ``Outcome``.
    ``own_task_only``, ``sender_prompt``: see ``handoff.record.record_handoff``.  The shell
    opens the store and reads the policy (``App``); this never builds one."""
    from agents_state.handoff.record import record_handoff
    from agents_state.types import utcnow

    def mutate(state: State | None) -> Outcome:
        now = utcnow()  # read under the lock, as every time that goes into the state
        out = record_handoff(
            state,
            h,
            now,
            task=task,
            phase=phase,
            agent=agent,
            policy=policy,
            own_task_only=own_task_only,
            sender_prompt=sender_prompt,
        )
        target = (out.record.get("handoff") or {}).get("target", "")
        if out.changed and target.startswith("phase "):
            pid = target.split(" ", 1)[1]
            spec = get_phase(pid)
            if h.decision != "CLARIFY" and (
                spec.reviews is not None or not _has_artifact(store, spec.artifact)
            ):
                store.write_artifact(spec.artifact, _artifact(h, pid))
        return out

    return store.commit(mutate)


def _has_artifact(store: WorkflowStore, name: str) -> bool:
    from agents_state.store.files import Store

    if isinstance(store, Store):  # whatever is there (a link, a folder) counts, unread
        return (store.phases_dir / name).exists()
    return store.read_artifact(name) is not None
