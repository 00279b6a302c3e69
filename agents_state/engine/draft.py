"""A fan-out phase's artifact drafted from its recorded answers (issue 34, item 2; pure).

After a phase's fan-out every answer is in ``state.fanouts`` already (the SubagentStop hook
recorded each one).  ``phase complete <id> --artifact <file> --from-answers`` with no file written
stores this draft as the artifact, so the main conversation need not read the answers back and
copy them out: findings by agent for a Markdown artifact, the reviewers' issues together for a
review's JSON.  The next phase gets the artifact printed in its action when it is short.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["draft_artifact"]


def _answer(entry: Any) -> dict[str, Any]:
    answer = entry.get("answer") if isinstance(entry, dict) else None
    return answer if isinstance(answer, dict) else {}


def draft_artifact(
    phase_id: str, name: str, task: str, answers: dict[str, Any], as_json: bool
) -> bytes:
    keys = sorted(answers)
    if as_json:
        issues: list[Any] = []
        for key in keys:
            found = _answer(answers[key]).get("findings")
            listed = found.get("issues") if isinstance(found, dict) else None
            issues += listed if isinstance(listed, list) else []
        return (json.dumps({"issues": issues}, indent=2) + "\n").encode()
    lines = [
        f"# {phase_id} {name}",
        "",
        f"Task: {task}",
        "",
        f"Drafted by agents-state from the answers of {len(keys)} agent(s): {', '.join(keys)}.",
    ]
    for key in keys:
        answer = _answer(answers[key])
        summary = str(answer.get("context_summary") or "").strip() or "(no summary)"
        lines += ["", f"## {key}", "", summary]
        findings = answer.get("findings")
        if findings:
            lines += ["", "```json", json.dumps(findings, indent=2, ensure_ascii=False), "```"]
    return ("\n".join(lines) + "\n").encode()
