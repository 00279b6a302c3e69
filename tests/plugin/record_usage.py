"""Record the transcripts of tests/data/usage/ with the real ``claude -p`` (issue 24).

    .venv/bin/python tests/plugin/record_usage.py

The stub answers every request with a usage derived from its number, so that each response's
tokens differ: the main conversation calls one ``Agent`` (in the foreground), the sub-agent runs
one Bash command and answers with a handoff naming task ``t2``, the main conversation ends.  The
main transcript and the agent's transcript are copied to tests/data/usage/ with the project's
temporary path replaced by ``/project``; ``expected.json`` lists the usage of every stub reply by
message id, which the tests compare the readers with.  The tests also pin this recording's
time stamps (its responses fall in the second 2026-11-25T17:16:06) and model: after recording
anew, update them in tests/test_usage.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from claude_cli import CLAUDE, base_env
from stub_api import Block, StubAPI, request_text

OUT = Path(__file__).resolve().parents[1] / "data" / "usage"
PROMPT = "Implement task t2 of the plan: add the health route."
HANDOFF = {
    "task_id": "t2",
    "phase": "implement",
    "status": "complete",
    "decision": "PROCEED",
    "context_summary": "health route added in health/route.py",
    "issues": [],
}


def usage(n: int, body: dict[str, Any]) -> dict[str, int]:
    return {
        "input_tokens": 100 * n + 1,
        "output_tokens": 10 * n + 2,
        "cache_creation_input_tokens": 1000 * n + 3,
        "cache_read_input_tokens": 10000 * n + 4,
    }


def script(body: dict[str, Any]) -> list[Block] | None:
    text = request_text(body)
    msgs = body.get("messages") or []
    last = msgs[-1] if msgs else {}
    content = last.get("content")
    results = [
        b for b in (content if isinstance(content, list) else []) if b.get("type") == "tool_result"
    ]
    first = request_text({"messages": msgs[:1]})
    if PROMPT in first:  # the sub-agent: a text and a tool call in one response, then its answer
        if not results:
            return [
                {"type": "text", "text": "Building it."},
                {"type": "tool_use", "name": "Bash", "input": {"command": "echo built"}},
            ]
        return [{"type": "text", "text": "Done.\n```json\n" + json.dumps(HANDOFF) + "\n```"}]
    if "START-USAGE" in text:
        if not results:
            call = {
                "description": "task t2",
                "prompt": PROMPT,
                "subagent_type": "general-purpose",
                "run_in_background": False,
            }
            return [{"type": "tool_use", "name": "Agent", "input": call}]
        return [{"type": "text", "text": "All done."}]
    return None


def derive(agent: Path) -> None:
    """``agent-truncated.jsonl``: its last line cut in half, as while the host writes it;
    ``agent-odd.jsonl``: a line that is not JSON and a usage of an unknown shape added."""
    lines = agent.read_bytes().splitlines(keepends=True)
    last = lines[-1]
    (agent.parent / "agent-truncated.jsonl").write_bytes(
        b"".join(lines[:-1]) + last[: len(last) // 2]
    )
    odd = json.loads(lines[0])
    odd.update(
        type="assistant",
        message={"id": "msg_odd", "role": "assistant", "model": "m", "usage": "lots"},
    )
    (agent.parent / "agent-odd.jsonl").write_bytes(
        lines[0] + b"{not json\n" + json.dumps(odd).encode() + b"\n" + b"".join(lines[1:])
    )


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        env = base_env("", "/usr/local/bin:/usr/bin:/bin")
        env["HOME"] = str(home)
        env["CLAUDE_CONFIG_DIR"] = str(home / ".claude")
        with StubAPI(script, usage) as api:
            env["ANTHROPIC_BASE_URL"] = api.url
            proc = subprocess.run(
                [CLAUDE, "-p", "START-USAGE", "--allowedTools", "Bash(echo *)"],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        print(proc.stdout, proc.stderr, file=sys.stderr)
        found = sorted((home / ".claude" / "projects").rglob("*.jsonl"))
        OUT.mkdir(parents=True, exist_ok=True)
        for path in found:
            name = "agent.jsonl" if path.name.startswith("agent-") else "main.jsonl"
            text = path.read_text().replace(str(project), "/project").replace(str(home), "/home")
            (OUT / name).write_text(text)
            print(f"{path} -> {OUT / name}")
        derive(OUT / "agent.jsonl")
        replies = {f"msg_stub_{n}": usage(n, {}) for n in range(1, len(api.requests) + 1)}
        (OUT / "expected.json").write_text(json.dumps(replies, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
