"""How full the orchestrating conversation's context is, from its Claude Code transcript.

The hook payloads name the transcript (``transcript_path``, a JSONL file); each assistant entry
carries the token usage of its request: ``input_tokens`` plus the cache reads and writes is what
the context held.  ``post-tool-use`` remembers the main conversation's transcript path in
``.agents/transcript-path``; ``next`` reads the newest usage from the file's tail (a bounded
read) and recommends compacting at ``compaction.contextPercent`` of the window (design 000: 70%):
the window of the entry's model (``window_for``; 1M where the model has it, issue 24) unless
``compaction.contextWindowTokens`` sets one.  A ``compact_boundary`` line newer than every
usage means the conversation was just compacted: its size is what the boundary says the
compaction left (``postTokens``), never a usage from before it (issue 27), whenever the host
flushes its next response.
"""

from __future__ import annotations

import os

__all__ = [
    "DEFAULT_WINDOW",
    "MODEL_WINDOWS",
    "PATH_FILE",
    "context_tokens",
    "context_usage",
    "remember_transcript",
    "transcript_of",
    "window_for",
]

DEFAULT_WINDOW = 200_000
# model id prefix -> context window (docs/decisions.md, issue 24): the models whose window is
# 1M tokens; Claude Code's "[1m]" model ids (``sonnet[1m]``) too.  A model not listed gets
# DEFAULT_WINDOW; ``compaction.contextWindows`` adds or overrides entries.
MODEL_WINDOWS: dict[str, int] = {
    "claude-opus-5": 1_000_000,
    "claude-sonnet-5": 1_000_000,
    "claude-opus-4-6": 1_000_000,
    "claude-sonnet-4-6": 1_000_000,
}

PATH_FILE = "transcript-path"
_TAIL = 256 * 1024


def remember_transcript(root: str, transcript: str) -> None:
    path = os.path.join(root, ".agents", PATH_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == transcript:
                return
    except OSError:
        pass
    from pathlib import Path

    from agents_state.errors import StorageIOError
    from agents_state.store.fsops import atomic_write

    try:
        atomic_write(Path(path), transcript.encode("utf-8"), f".agents/{PATH_FILE}")
    except StorageIOError as e:
        raise OSError(str(e)) from None  # callers treat it as advice lost, as before


def transcript_of(root: str) -> str | None:
    try:
        with open(os.path.join(root, ".agents", PATH_FILE), encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def window_for(model: str | None, extra: dict[str, int] | None = None) -> int:
    """The context window of ``model``: the longest matching prefix of the table."""
    if not model:
        return DEFAULT_WINDOW
    low = model.strip().lower()
    if "[1m]" in low:
        return 1_000_000
    table = {**MODEL_WINDOWS, **{k.lower(): v for k, v in (extra or {}).items()}}
    best = max((p for p in table if low.startswith(p)), key=len, default=None)
    return table[best] if best is not None else DEFAULT_WINDOW


def _model(entry: object) -> str | None:
    msg = entry.get("message") if isinstance(entry, dict) else None
    model = msg.get("model") if isinstance(msg, dict) else None
    return model if isinstance(model, str) and model else None


def _usage_tokens(entry: object) -> int | None:
    if not isinstance(entry, dict) or entry.get("isSidechain"):
        return None
    msg = entry.get("message")
    usage = msg.get("usage") if isinstance(msg, dict) else None
    if not isinstance(usage, dict):
        return None
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    vals = [usage.get(k) for k in keys]
    return sum(v for v in vals if isinstance(v, int) and not isinstance(v, bool)) or None


def context_tokens(transcript: str) -> int | None:
    """Tokens in context at the newest assistant entry of the transcript, or None."""
    found = context_usage(transcript)
    return found[0] if found else None


def context_usage(transcript: str) -> tuple[int, str | None] | None:
    """Tokens in context at the newest assistant entry, and its model; or None."""
    try:
        with open(transcript, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _TAIL))
            data = f.read(_TAIL)
    except OSError:
        return None
    import json  # here: the PostToolUse hook imports this module on every main-conversation call

    compacted: int | None = None  # the size the newest compaction left, when one came last
    for line in reversed(data.splitlines()):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if compacted is None and _is_boundary(entry):
            compacted = _post_tokens(entry)
            continue
        tokens = _usage_tokens(entry)
        if tokens is not None:
            # a usage before the newest compaction is gone from the context: only its model counts
            return (tokens if compacted is None else compacted), _model(entry)
    return (compacted, None) if compacted is not None else None


def _is_boundary(entry: object) -> bool:
    return isinstance(entry, dict) and entry.get("subtype") == "compact_boundary"


def _post_tokens(entry: dict[str, object]) -> int:
    """What a compaction left in context: the host's ``compactMetadata.postTokens`` (2.1.330),
    else 0 (a compaction just happened: compacting again cannot help)."""
    meta = entry.get("compactMetadata")
    post = meta.get("postTokens") if isinstance(meta, dict) else None
    return post if isinstance(post, int) and not isinstance(post, bool) and post >= 0 else 0
