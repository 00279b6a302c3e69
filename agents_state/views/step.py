"""What ``App.next_action`` gathers for ``engine.next_step`` and adds to its rendering.

``facts`` reads what the engine cannot (the main conversation's size and tool calls, and, as
functions the engine calls only when a gate needs them, the usage book, the refusals file and
the installed Codex).  ``finish`` adds to a rendered action what only the shell can (issue 34:
the briefs by reference, in ``.agents/briefs/``, and the short artifacts inline; issue 27: the
refusals of a blocked step, worded last), and returns the brief files for the caller to write:
a read command writes none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents_state.config import Config
    from agents_state.engine.decision import Decision
    from agents_state.engine.step import Facts
    from agents_state.models import State

__all__ = ["context_size", "facts", "finish"]


def facts(root: str, config: Config, state: State, native: bool, advice: bool) -> Facts:
    """The facts of ``state``'s next step in the project ``root``; ``advice=False`` reads
    neither the context's size nor the tool calls (the compaction advice is left out)."""
    from agents_state.engine.step import Facts
    from agents_state.store.toolcalls import count

    tokens, window, calls = None, None, 0
    if advice:
        tokens, window = context_size(root, config)
        calls = count(root)

    def usage() -> tuple[int, dict[str, int]]:
        from agents_state.views.usage import budget_usage  # issue 24

        return budget_usage(root, state)

    def refusals(since: str | None) -> list[dict[str, Any]]:
        from typing import cast

        from agents_state.store.refusals import of_step

        return cast("list[dict[str, Any]]", of_step(root, since))

    return Facts(
        tool_calls=calls,
        context_tokens=tokens,
        context_window=window,
        usage=usage,
        refusals=refusals,
        codex=_codex_version,
        native=native,
        advice=advice,
    )


def context_size(root: str, config: Config) -> tuple[int | None, int | None]:
    """The main conversation's tokens in context and its model's window, when known."""
    from agents_state.contextsize import context_usage, transcript_of, window_for

    transcript = transcript_of(root)
    found = context_usage(transcript) if transcript else None
    if found is None:
        return None, None
    return found[0], window_for(found[1], config.compaction.contextWindows)


def finish(
    action: dict[str, Any], d: Decision, root: str, by_reference: bool
) -> tuple[dict[str, Any], dict[str, str]]:
    """The action with its briefs by reference (``by_reference``: a file store; a server store
    keeps nothing on disk, so its prompts stay whole), its short reads inline and its refusals
    worded; and the briefs (absolute path -> text)."""
    files: dict[str, str] = {}
    if by_reference and (
        isinstance(action.get("workflow"), dict) or isinstance(action.get("tasks"), list)
    ):
        from agents_state.engine.briefs import by_reference as referenced
        from agents_state.engine.briefs import tasks_by_reference

        if isinstance(action.get("workflow"), dict):
            action, files = referenced(action, root)
        else:  # the Agent path: each task's prompt (issue 34)
            action, files = tasks_by_reference(action, root)
    if action.get("read") and not action.get("tasks"):  # issue 34: short artifacts printed,
        # not read in a turn; a task wave's agents carry their own briefs, so its files stay
        # references (the SessionStart context stays small)
        from agents_state.views.inline import inline_reads

        action = inline_reads(action, root)
    if d.refusals is not None:
        from agents_state.views.nextaction import with_refusals

        action = with_refusals(action, d.refusals, root)
    return action, files


def _codex_version() -> str | None:
    """The installed Codex CLI's version (issue 37), asked only at a Codex review."""
    from agents_state.codexcli import installed_version

    return installed_version()
