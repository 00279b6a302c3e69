"""``report``: a workflow summarised for people, in Markdown or as an HTML page (issue 24).

Phases with their wall time and tokens, the agents of each phase, tasks, retries, test runs and
review rounds.  Tokens come from the usage book (``usage/``), times and counters from the state,
test runs from the event log.  Pure: the caller passes the state, the usage, the events, ``now``.
"""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from agents_state.models import State
from agents_state.safetext import escape
from agents_state.views.usage import fmt_seconds, fmt_tokens
from agents_state.workflow import PHASES, TASK_PHASE, TEST_RUN

__all__ = ["report_html", "report_markdown", "test_runs"]


def _cell(text: Any) -> str:
    return escape(str(text)).replace("|", "\\|").replace("\n", " ")


def test_runs(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each recorded run of the tests (phase 3.1 completed), with whether it passed."""
    return [
        {"at": e.get("at"), "passed": e.get("tests_passed")}
        for e in events
        if e.get("event") == "phase_complete" and e.get("phase") == TEST_RUN
    ]


def _phase_rows(state: State, usage: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for p in PHASES:
        stage = state.stages.get(p.stage)
        ph = stage.phases.get(p.id) if stage else None
        if ph is None:
            continue
        u = usage["phases"].get(p.id) or {}
        rows.append(
            {
                "id": p.id,
                "name": p.name,
                "status": ph.status,
                "seconds": u.get("seconds"),
                "tokens": u.get("tokens", 0),
                "agents": u.get("agents", 0),
                "attempts": ph.attempts,
                "reviewRounds": ph.reviewRounds,
                "startedAt": ph.startedAt,
                "completedAt": ph.completedAt,
            }
        )
    return rows


def report_markdown(
    state: State, usage: dict[str, Any], events: list[dict[str, Any]], now: datetime
) -> str:
    kinds = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    for row in usage["phases"].values():
        for k, v in (row.get("byKind") or {}).items():
            kinds[k] = kinds.get(k, 0) + v
    status = "aborted" if state.abortedAt else state.status
    out = [
        f"# Workflow report: {_cell(state.task)}",
        "",
        f"- status: {status}; started {state.startedAt}; last update {state.updatedAt}",
        f"- wall time: {fmt_seconds(usage.get('seconds'))}",
        f"- tokens: {usage['tokens']} (input {kinds['input']}, output {kinds['output']}, "
        f"cache read {kinds['cacheRead']}, cache write {kinds['cacheWrite']}), from the "
        "host's transcripts",
    ]
    if usage.get("byModel"):
        out.append(
            "- by model: "
            + ", ".join(f"{_cell(m)} {n}" for m, n in sorted(usage["byModel"].items()))
        )
    out += [
        "",
        "## Phases",
        "",
        "| phase | name | status | time | tokens | agents | failures | review rounds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    rows = _phase_rows(state, usage)
    for r in rows:
        out.append(
            f"| {r['id']} | {_cell(r['name'])} | {r['status']} | {fmt_seconds(r['seconds'])} "
            f"| {r['tokens']} | {r['agents']} | {r['attempts']} | {r['reviewRounds']} |"
        )
    out += _agent_sections(usage)
    out += _task_section(state, usage)
    runs = test_runs(events)
    out += ["", "## Test runs", ""]
    if not runs:
        out.append("No test run recorded.")
    for i, run in enumerate(runs, 1):
        verdict = {True: "passed", False: "failed"}.get(run["passed"], "recorded")
        out.append(f"{i}. {run['at']}: {verdict}")
    from agents_state.views.gates import report_section

    gates = report_section(state)  # issue 36: the waiting gate and every answer
    out += ["", *gates] if gates else []
    retried = [r for r in rows if r["attempts"]]
    rounds = [r for r in rows if r["reviewRounds"]]
    tasks = state.phase(TASK_PHASE).tasks if TASK_PHASE in _phase_ids(state) else None
    reclaimed = [(t, s.attempts) for t, s in (tasks or {}).items() if s.attempts > 1]
    out += ["", "## Retries and review rounds", ""]
    out += [f"- phase {r['id']}: failed {r['attempts']} time(s), retried" for r in retried]
    out += [f"- task {_cell(t)}: claimed {n} times" for t, n in reclaimed]
    out += [f"- review {r['id']}: {r['reviewRounds']} round(s) sent back" for r in rounds]
    if not retried and not rounds and not reclaimed:
        out.append("None.")
    if usage.get("notes"):
        out += ["", "## Notes", ""] + [f"- {_cell(n)}" for n in usage["notes"]]
    return "\n".join(out) + "\n"


def _agent_sections(usage: dict[str, Any]) -> list[str]:
    by_phase: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for aid, a in usage["agents"].items():
        by_phase.setdefault(str(a.get("phase") or "-"), []).append((aid, a))
    out = ["", "## Agents by phase"]
    if not by_phase:
        out += ["", "No sub-agent usage recorded."]
    for pid in sorted(by_phase):
        out += [
            "",
            f"### Phase {pid}",
            "",
            "| agent | type | task | tokens | time |",
            "|---|---|---|---|---|",
        ]
        for aid, a in sorted(by_phase[pid], key=lambda x: str(x[1].get("startedAt") or "")):
            out.append(
                f"| {_cell(aid)} | {_cell(a.get('type') or '-')} | {_cell(a.get('task') or '-')} "
                f"| {a['tokens']} | {fmt_seconds(a.get('seconds'))} |"
            )
    main = {p: r.get("main", 0) for p, r in usage["phases"].items() if r.get("main")}
    if main:
        out += ["", "Main conversation: " + ", ".join(f"{p} {n}" for p, n in main.items())]
    return out


def _task_section(state: State, usage: dict[str, Any]) -> list[str]:
    tasks = state.phase(TASK_PHASE).tasks if TASK_PHASE in _phase_ids(state) else None
    if not tasks:
        return []
    out = [
        "",
        "## Tasks",
        "",
        "| task | status | attempts | tokens | agents |",
        "|---|---|---|---|---|",
    ]
    for tid, t in tasks.items():
        u = usage["tasks"].get(tid) or {}
        out.append(
            f"| {_cell(tid)} | {t.status} | {t.attempts} | {u.get('tokens', 0)} "
            f"| {u.get('agents', 0)} |"
        )
    return out


def _phase_ids(state: State) -> set[str]:
    return {pid for s in state.stages.values() for pid in s.phases}


def report_html(
    state: State, usage: dict[str, Any], events: list[dict[str, Any]], now: datetime
) -> str:
    """The Markdown report as a page, with a timeline of phases and agents."""
    from agents_state.types import parse_time

    spans: list[tuple[str, str, str | None, str]] = []  # (label, start, end, kind)
    for r in _phase_rows(state, usage):
        if r["startedAt"]:
            label = f"{r['id']} {r['name']} · {fmt_tokens(r['tokens'])}"
            spans.append((label, r["startedAt"], r["completedAt"], "phase"))
    for aid, a in usage["agents"].items():
        if a.get("startedAt"):
            label = f"{a.get('type') or aid} {a.get('task') or ''} · {fmt_tokens(a['tokens'])}"
            spans.append((label, a["startedAt"], a.get("endedAt"), "agent"))
    bars = []
    times = []
    for _label, start, end, _kind in spans:
        try:
            times.append(parse_time(start))
            times.append(parse_time(end) if end else now)
        except ValueError:
            continue
    if times:
        t0, t1 = min(times), max(times)
        whole = max((t1 - t0).total_seconds(), 1.0)
        for label, start, end, kind in sorted(spans, key=lambda s: s[1]):
            try:
                a = (parse_time(start) - t0).total_seconds()
                b = ((parse_time(end) if end else now) - t0).total_seconds()
            except ValueError:
                continue
            left, width = 100 * a / whole, max(0.5, 100 * (b - a) / whole)
            bars.append(
                f'<div class="row"><span class="label">{html.escape(label)}</span>'
                f'<span class="track"><span class="bar {kind}" style="left:{left:.2f}%;'
                f'width:{width:.2f}%"></span></span></div>'
            )
    body = html.escape(report_markdown(state, usage, events, now))
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8">'
        f"<title>Workflow report: {html.escape(state.task)}</title><style>"
        "body{font-family:sans-serif;margin:2em}.row{display:flex;align-items:center;"
        "margin:2px 0}.label{width:22em;font-size:12px;white-space:nowrap;overflow:hidden}"
        ".track{position:relative;flex:1;height:14px;background:#eee}"
        ".bar{position:absolute;top:0;height:14px}.phase{background:#4a7fd0}"
        ".agent{background:#e0a030}pre{white-space:pre-wrap}</style></head><body>\n"
        f"<h1>Timeline</h1>\n{''.join(bars) or '<p>Nothing started yet.</p>'}\n"
        f"<h1>Report</h1>\n<pre>{body}</pre>\n</body></html>\n"
    )
