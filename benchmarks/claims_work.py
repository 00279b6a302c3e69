"""Working agents for bench_claims.py (issue 34, item 5): the stub's fan-out agents do the work
their briefs ask, through the host's real tools, on a real project.

The project is a copy of this repository's tracked files at HEAD (``git archive``, without the
dot entries: a plain folder, not a git repository).  Every agent first Reads its brief (the path
its prompt names), then, by a fixed rule (nothing here looks at the figures it produces):

- an **explore** agent lists the project's top level (``Glob *``), takes its part of the
  top-level entries as the brief says (name order, ``n`` consecutive parts, the first ones one
  larger) and Reads ``FILES_PER_AREA`` files of it, spread evenly through the part's text files
  in name order (files the Read tool takes whole: at most 2,000 lines); it answers with one line
  per file read (its path and first line);
- a **plan** agent Reads the explore findings and the brainstorm (``.agents/phases/0-explore.md``,
  ``1.1-brainstorm.md``), and answers with the plan's tasks;
- a **task** agent runs ``agents-state task start``, Reads its task's files, makes its edit
  (``Edit``: a comment after the first line that occurs once), runs ``task done``;
- a **reviewer** Reads the artifacts of the phase it reviews (``.agents/phases/<phase>-*``)
  and, from the wave on, the files the tasks changed (the change itself: there is no git here).

The tool results are the host's: its Read, Glob, Edit and Bash ran them.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import tarfile
from pathlib import Path
from typing import Any

from fanout_stub import AgentCall
from stub_api import Block
from test_native_e2e import Agents, answer
from test_workflow_e2e import bash, handoff

REPO = Path(__file__).resolve().parent.parent
FILES_PER_AREA = 6
MAX_LINES = 2000  # what the host's Read tool takes whole
TASKS = {  # two tasks on real files of the project
    "tasks": [
        {
            "id": "t1",
            "title": "health in status",
            "complexity": "easy",
            "dependencies": [],
            "files": ["agents_state/cli/cmd_status.py"],
        },
        {
            "id": "t2",
            "title": "health in the app",
            "complexity": "easy",
            "dependencies": [],
            "files": ["agents_state/app.py"],
        },
    ]
}
BRIEF = re.compile(r"(/\S+/\.agents/briefs/\S+?\.md)")


def project(root: Path) -> None:
    """This repository's tracked files at HEAD, without its dot entries, into ``root``."""
    names = subprocess.run(
        ["git", "-C", str(REPO), "ls-tree", "--name-only", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    top = [n for n in names if not n.startswith(".")]
    tar = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", "HEAD", *top],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(root, filter="data")


def top_level(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if not p.name.startswith("."))


def part(entries: list[str], k: int, n: int) -> list[str]:
    """Part ``k`` (from 1) of ``n`` consecutive parts, the first ones one larger (the brief's)."""
    if len(entries) < n:
        return [entries[(k - 1) % len(entries)]] if entries else []
    size, extra = divmod(len(entries), n)
    start = (k - 1) * size + min(k - 1, extra)
    return entries[start : start + size + (1 if k <= extra else 0)]


def text_files(root: Path, entries: list[str]) -> list[Path]:
    out: list[Path] = []
    for entry in entries:
        path = root / entry
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for p in found:
            if any(s.startswith(".") or s == "__pycache__" for s in p.relative_to(root).parts):
                continue
            try:
                lines = p.read_text().count("\n")
            except (UnicodeDecodeError, OSError):
                continue
            if 0 < lines <= MAX_LINES:
                out.append(p)
    return out


def spread(files: list[Path], n: int) -> list[Path]:
    """``n`` of ``files``, evenly spaced through them (all of them when there are fewer)."""
    if len(files) <= n:
        return files
    return [files[int((i + 0.5) * len(files) / n)] for i in range(n)]


def read(path: Path | str) -> Block:
    return {"type": "tool_use", "name": "Read", "input": {"file_path": str(path)}}


def first_line(path: Path) -> str:
    return next((ln.strip() for ln in path.read_text().splitlines() if ln.strip()), "")[:100]


class Working(Agents):
    """The fan-out agents of the test, doing their briefs' work (see the module's text)."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.steps = self.work_steps
        self.answer = self.work_answer
        self.read_by: dict[str, list[Path]] = {}  # what each explore agent read

    def brief(self, call: AgentCall) -> tuple[Path | None, str]:
        found = BRIEF.search(call.prompt)
        if not found:
            return None, ""
        path = Path(found.group(1))
        return path, path.read_text() if path.is_file() else ""

    def plan(self, call: AgentCall) -> list[list[Block]]:
        """The agent's tool calls, one message each, before its answer."""
        path, brief = self.brief(call)
        steps: list[list[Block]] = [[read(path)]] if path else []
        phases = self.root / ".agents" / "phases"
        if call.kind == "explore":
            said = re.search(r"Explore area (\d+) of (\d+)", brief)
            k, n = (int(said.group(1)), int(said.group(2))) if said else (1, 1)
            files = spread(text_files(self.root, part(top_level(self.root), k, n)), FILES_PER_AREA)
            self.read_by[call.key] = files
            glob = {"type": "tool_use", "name": "Glob", "input": {"pattern": "*"}}
            steps += [[glob], [read(p) for p in files]]
        elif call.kind == "plan":
            steps.append([read(phases / "0-explore.md"), read(phases / "1.1-brainstorm.md")])
        elif call.kind == "task":
            task = next(t for t in TASKS["tasks"] if t["id"] == call.key)
            files = [self.root / f for f in task["files"]]
            steps += [
                [bash(f"agents-state task start {call.key}")],
                [read(p) for p in files],
                [self.edit(p, call.key) for p in files],
                [bash(f'agents-state task done {call.key} --summary "Implemented {call.key}"')],
            ]
        elif call.kind == "reviewer":
            said = re.search(r"Review the work of phase (\S+?) ", brief)
            reviewed = said.group(1) if said else ""
            reads = [read(p) for p in sorted(phases.glob(f"{reviewed}-*")) if p.is_file()]
            if reviewed and reviewed >= "2":
                reads += [read(self.root / f) for t in TASKS["tasks"] for f in t["files"]]
            if reads:
                steps.append(reads)
        return [s for s in steps if s]

    @staticmethod
    def edit(path: Path, key: str) -> Block:
        lines = path.read_text().splitlines()
        line = next(ln for ln in lines if len(ln) > 10 and lines.count(ln) == 1)
        new = f"{line}\n# health check ({key}): reported by status"
        return {
            "type": "tool_use",
            "name": "Edit",
            "input": {"file_path": str(path), "old_string": line, "new_string": new},
        }

    def work_steps(self, call: AgentCall) -> list[Block] | None:
        done = sum(1 for m in call.body["messages"] if m.get("role") == "assistant")
        steps = self.plan(call)
        if call.kind == "task":
            with self.lock:
                self.shell += [(call.key, r) for r in call.results.values()]
        return steps[done] if done < len(steps) else None

    def work_answer(self, call: AgentCall) -> dict[str, Any]:
        if call.kind == "explore":
            files = self.read_by.get(call.key, [])
            lines = [f"{p.relative_to(self.root)}: {first_line(p)}" for p in files]
            summary = f"{call.key}: mapped {len(files)} files."
            return handoff(call.key, "research", summary, findings={"files": lines})
        if call.kind == "task":
            task = next(t for t in TASKS["tasks"] if t["id"] == call.key)
            done = f"{call.key} done: {', '.join(task['files'])} report the health check."
            return handoff(call.key, "write", done, files_changed=task["files"])
        return answer(call)


def allow_edits(home: Path, root: Path) -> None:
    """The user's grant for the task agents' edits of the project's files (the plugin approves
    only the workflow's own writes): ``Edit`` under the project's ``agents_state/``."""
    path = home / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    data["permissions"] = {"allow": [f"Edit(/{root.resolve()}/agents_state/**)"]}
    path.write_text(json.dumps(data))
