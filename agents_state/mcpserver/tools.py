"""The MCP tools: seven, each calling the core function its command calls (``verbs``).

A tool's result is its command's ``--json`` body, as a value; an error is the command's error
(``AgentsStateError``), raised for the server to turn into one line.  No tool answers a gate,
and none takes a person's decision (``dispatch --replace``, ``task done --force``,
``resume --skip``, budgets): the tools are the plugin's own approved steps (``hooks.engine_steps``).
Inputs are values, never file names: an artifact, a result or a response comes as its text, so
nothing outside the project is read through a tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents_state.errors import UsageError

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.verbs.results import Result

__all__ = ["STATUS_PAGE", "TOOLS", "call", "tool_list"]

STATUS_PAGE = 20  # tasks per page of ``status`` with ``verbose`` (about 3 KB of tasks)
_STR: dict[str, Any] = {"type": "string"}
_PHASE = {"type": "string", "description": "phase id, e.g. 1.1"}
_AGENT = {"type": "string", "description": "who works on the task"}
_NEXT = {"type": "object", "description": "the next action (as the tool next)"}
_OUTCOME = {
    "type": "object",
    "required": ["message", "next"],
    "properties": {"message": _STR, "revision": {"type": ["integer", "null"]}, "next": _NEXT},
}


def _schema(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema


# name -> (description, input schema, output schema)
TOOLS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "status": (
        "Where the workflow stands and the next action (= agents-state status --json "
        f"--brief). verbose adds the tasks, {STATUS_PAGE} a page: offset/limit, taskPage.next.",
        _schema(
            {
                "verbose": {"type": "boolean"},
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            }
        ),
        {
            "type": "object",
            "required": ["workflow", "next"],
            "properties": {"workflow": {"type": ["object", "null"]}, "next": _NEXT},
        },
    ),
    "next": (
        "The next action: what to run or launch now, and the command that records it "
        "(= agents-state next --json).",
        _schema({}),
        {"type": "object", "required": ["kind"], "properties": {"kind": _STR}},
    ),
    "compact": (
        "Record the compaction point the next action asks for; then ask the user to compact "
        "the conversation (= agents-state compact --json).",
        _schema({}),
        _OUTCOME,
    ),
    "dispatch": (
        "Start a workflow for a task (= agents-state dispatch TASK --json); without task: "
        "where the active one stands.",
        _schema({"task": {"type": "string", "description": "what the workflow should do"}}),
        _OUTCOME,
    ),
    "phase": (
        "Record a phase: start, complete with its artifact's text, or fail with an error "
        "(= agents-state phase start|complete|fail ID --json).",
        _schema(
            {
                "action": {"enum": ["start", "complete", "fail"]},
                "phase": _PHASE,
                "artifact": {"type": "string", "description": "complete: the artifact's text"},
                "plan_agents": {"type": "integer", "minimum": 1, "maximum": 10},
                "error": _STR,
            },
            ("action", "phase"),
        ),
        _OUTCOME,
    ),
    "task": (
        "Phase 2.1 tasks: load their definitions (tasks: the JSON text), claim the next ready "
        "one (or id), start, done, fail (= agents-state tasks load / task ACTION --json).",
        _schema(
            {
                "action": {"enum": ["load", "claim", "start", "done", "fail"]},
                "tasks": {"type": "string", "description": 'load: {"tasks": [...]} as JSON'},
                "id": {"type": "string", "description": "task id (claim: optional)"},
                "agent": _AGENT,
                "summary": {"type": "string", "description": "done: one line"},
                "result": {"type": "string", "description": "done: result text (markdown)"},
                "error": {"type": "string", "description": "fail: what went wrong"},
                "attempt": {"type": "integer"},
            },
            ("action",),
        ),
        {"type": "object", "required": ["message"], "properties": {"message": _STR}},
    ),
    "handoff": (
        "Record a sub-agent's handoff response: PROCEED completes the step, STOP halts, "
        "CLARIFY asks the user (= agents-state handoff record - --json).",
        _schema(
            {
                "response": {"type": "string", "description": "the response (JSON, or in prose)"},
                "task": {"type": "string"},
                "phase": _PHASE,
                "agent": _STR,
            },
            ("response",),
        ),
        _OUTCOME,
    ),
}


def tool_list() -> list[dict[str, Any]]:
    """The tools as ``tools/list`` gives them (camelCase keys)."""
    return [
        {"name": name, "description": d, "inputSchema": i, "outputSchema": o}
        for name, (d, i, o) in TOOLS.items()
    ]


def call(name: str, args: dict[str, Any], open_app: Callable[[], App]) -> dict[str, Any]:
    """Run tool ``name`` with ``args`` on the project ``open_app`` opens; its command's
    ``--json`` body, or the command's error raised."""
    if name not in TOOLS:
        raise UsageError(f"no tool {name}; the tools: {', '.join(TOOLS)}")
    _check_args(name, args)
    return _HANDLERS[name](args, open_app()).body()


def _check_args(name: str, args: dict[str, Any]) -> None:
    """The arguments against the tool's input schema: one line naming the first bad one."""
    schema = TOOLS[name][1]
    props: dict[str, Any] = schema["properties"]
    for key in schema.get("required", ()):
        if key not in args:
            raise UsageError(f"tool {name}: argument {key} is required")
    for key, value in args.items():
        spec = props.get(key)
        if spec is None:
            known = ", ".join(props) or "none"
            raise UsageError(f"tool {name}: unknown argument {key} (arguments: {known})")
        problem = _bad_value(spec, value)
        if problem:
            raise UsageError(f"tool {name}: argument {key}: {problem}")


def _bad_value(spec: dict[str, Any], value: object) -> str | None:
    if "enum" in spec:
        return None if value in spec["enum"] else f"must be one of {', '.join(spec['enum'])}"
    kind = spec["type"]
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind == "string":
        return None if isinstance(value, str) else "must be a string"
    if not isinstance(value, int) or isinstance(value, bool):
        return "must be an integer"
    low, high = spec.get("minimum"), spec.get("maximum")
    if low is not None and high is not None and not low <= value <= high:
        return f"must be from {low} to {high}"
    if low is not None and value < low:
        return f"must be at least {low}"
    return None


def _need(name: str, action: str, args: dict[str, Any], key: str) -> Any:
    if key not in args:
        raise UsageError(f"tool {name}: action {action} needs the argument {key}")
    return args[key]


def _status(args: dict[str, Any], app: App) -> Result:
    from agents_state.verbs.flow import status

    verbose = bool(args.get("verbose"))
    limit = args.get("limit", STATUS_PAGE) if verbose else None
    if not verbose and ("offset" in args or "limit" in args):
        raise UsageError("tool status: offset and limit page the tasks: add verbose true")
    return status(app, verbose, args.get("offset", 0), limit, brief=True)


def _next(args: dict[str, Any], app: App) -> Result:
    import sys

    from agents_state.verbs.flow import next_action

    return next_action(app, lambda text: print(text, file=sys.stderr))


def _compact(args: dict[str, Any], app: App) -> Result:
    from agents_state.verbs.flow import compact

    return compact(app)


def _dispatch(args: dict[str, Any], app: App) -> Result:
    from agents_state.verbs.flow import dispatch

    return dispatch(app, args.get("task"), "task")


def _phase(args: dict[str, Any], app: App) -> Result:
    from agents_state.verbs import steps as core

    action, phase = args["action"], args["phase"]
    if action == "start":
        return core.phase_start(app, phase)
    if action == "fail":
        return core.phase_fail(app, phase, _need("phase", action, args, "error"))
    text = args.get("artifact")
    body = None if text is None else text.encode("utf-8")
    return core.phase_complete(app, phase, body, "artifact", args.get("plan_agents"))


def _task(args: dict[str, Any], app: App) -> Result:
    from agents_state.verbs import tasks as core

    action, agent = args["action"], args.get("agent")
    if action == "load":
        text = _need("task", action, args, "tasks")
        return core.tasks_load(app, text.encode("utf-8"), "tasks")
    if action == "claim":
        return core.task_claim(app, args.get("id"), agent)
    tid = _need("task", action, args, "id")
    if action == "start":
        return core.task_start(app, tid, agent)
    if action == "fail":
        error = _need("task", action, args, "error")
        return core.task_fail(app, tid, error, agent, args.get("attempt"))
    text = args.get("result")
    result = None if text is None else (text.encode("utf-8"), "result")
    return core.task_done(app, tid, args.get("summary"), result, agent, args.get("attempt"))


def _handoff(args: dict[str, Any], app: App) -> Result:
    from agents_state.verbs.steps import handoff_record

    return handoff_record(
        app,
        args["response"],
        "response",
        "auto",
        args.get("task"),
        args.get("phase"),
        args.get("agent"),
    )


_HANDLERS: dict[str, Callable[[dict[str, Any], App], Result]] = {
    "status": _status,
    "next": _next,
    "compact": _compact,
    "dispatch": _dispatch,
    "phase": _phase,
    "task": _task,
    "handoff": _handoff,
}
