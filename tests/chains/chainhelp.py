"""Drive chains through the installed console script, checking state and files after each step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clitools import run_cli

from agents_state.chains.action import slot_paths
from agents_state.chains.state import ChainState
from agents_state.handoff.protocol import check_handoff

RAW = "RAW-FINDING-only-the-researcher-saw-this"

RESEARCH = {
    "decision": "PROCEED",
    "findings": {
        "existing_implementations": [{"file": "src/lib/auth.ts", "description": RAW}],
        "conflicts": [],
        "patterns_found": [RAW + " pattern"],
    },
    "context_summary": "JWT auth exists at src/lib/auth.ts; extend it. No conflicts.",
    "tokens_used": 15000,
}
CLARIFY = {
    "decision": "CLARIFY",
    "findings": {},
    "context_summary": "Two providers configured.",
    "questions": ["Session cookies or JWT tokens?"],
}
STOP = {
    "decision": "STOP",
    "findings": {"conflicts": [{"type": "naming", "description": "loginUser exists"}]},
    "context_summary": "loginUser already exists in src/lib/auth.ts.",
    "reason": "loginUser already exists",
}
WRITER = {
    "status": "complete",
    "files_changed": [{"path": "src/lib/auth.ts", "action": "modified"}],
    "tests_written": [{"path": "src/lib/auth.test.ts", "count": 5}],
    "context_summary": "Added loginUser to auth.ts with tests.",
}
QA_PASS = {
    "decision": "PROCEED",
    "checks": {
        "types": {"passed": True},
        "tests": {"passed": True, "coverage": 90},
        "security": {"passed": True, "issues": []},
    },
    "summary": "All checks passed",
}
QA_FAIL = {
    "decision": "STOP",
    "checks": {
        "types": {"passed": True},
        "tests": {"passed": False, "failed": ["loginUser should return token"]},
        "security": {"passed": True},
    },
}
REVIEW = {
    "mode": "review",
    "findings": {"missing": []},
    "recommendations": [],
    "context_summary": "Spec complete, EARS respected.",
    "decision": "PROCEED",
}


def checker(mode: str, ok: bool = True) -> dict[str, Any]:
    return {
        "check_type": mode,
        "status": "pass" if ok else "fail",
        "output": "ok" if ok else f"{mode}: 2 errors",
        "duration_ms": 100,
    }


class Walk:
    def __init__(self, root: Path) -> None:
        self.root = root

    def run(self, *args: str, code: int = 0, stdin: str | None = None) -> str:
        r = run_cli(self.root, *args, stdin=stdin)
        assert r.returncode == code, (args, r.stdout, r.stderr)
        return r.stdout + r.stderr

    def js(self, *args: str, stdin: str | None = None) -> Any:
        return json.loads(self.run(*args, "--json", stdin=stdin))

    def chain(self, cid: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(
            (self.root / ".agents" / "chains" / f"{cid}.json").read_text()
        )
        return data

    def read(self, rel: str) -> Any:
        return json.loads((self.root / rel).read_text())

    def requests(self, cid: str, action: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The current step's request files: present, valid requests of the right phase."""
        action = action or self.js("chain", "next", cid)["next"]
        assert action["kind"] == "dispatch_agents", action
        out = []
        for rel in action["read"]:
            req = self.read(rel)
            check_handoff(req, rel, "request")
            out.append(req)
        assert len(out) == action["agents"]["count"]
        return out

    def respond(self, cid: str, *replies: dict[str, Any]) -> dict[str, Any]:
        """Answer the current step as its sub-agents would; check the chain moved by one rev."""
        before = self.chain(cid)
        c = ChainState.model_validate(before)
        assert c.step is not None
        paths = [resp for _i, _req, resp in slot_paths(c, c.step)]
        assert len(paths) == len(replies), (paths, replies)
        for rel, reply in zip(paths, replies, strict=True):
            (self.root / rel).write_text(json.dumps(reply))
        out: dict[str, Any] = self.js("chain", "record", cid, *paths)
        after = self.chain(cid)
        assert after["revision"] == before["revision"] + 1
        assert out["status"] == after["status"]
        if after["status"] == "running":
            self.requests(cid, out["next"])  # the next step's requests: on disk and valid
        return out
