"""The 3.1 test results file: its one documented shape, read strictly (pure).

::

    {"passed": false,
     "failed": ["test"],
     "commands": [{"name": "test", "command": "pytest -q", "exitCode": 1, "timedOut": false,
                   "durationSeconds": 3.2, "outputTail": "... last 40 lines ..."}]}

``commands`` is required and not empty; each command needs a ``name`` and an ``exitCode`` (an
integer, or null when it timed out).  ``passed`` and ``failed`` are derived from the exit codes;
when given they must agree with them (a model that writes ``"passed": true`` over a failing
command is refused rather than believed).  Unknown keys are refused with a did-you-mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents_state.errors import InvalidInputError
from agents_state.strictkeys import check_keys

__all__ = ["COMMAND_KEYS", "RESULT_KEYS", "TestRun", "read_results"]

RESULT_KEYS = ("passed", "failed", "commands", "summary")
COMMAND_KEYS = ("name", "command", "exitCode", "timedOut", "durationSeconds", "outputTail")
_SYNONYMS = {
    "exit_code": "exitCode",
    "returncode": "exitCode",
    "returnCode": "exitCode",
    "code": "exitCode",
    "status": "exitCode",
    "exit": "exitCode",
    "output": "outputTail",
    "stdout": "outputTail",
    "stderr": "outputTail",
    "tail": "outputTail",
    "timeout": "timedOut",
    "timed_out": "timedOut",
    "duration": "durationSeconds",
    "cmd": "command",
    "results": "commands",
    "tests": "commands",
    "success": "passed",
    "ok": "passed",
}
_FORMAT = '{"commands": [{"name": "test", "command": "...", "exitCode": 0}]}'


@dataclass(frozen=True)
class TestRun:
    passed: bool
    failed: tuple[str, ...]
    total: int


def _command(raw: Any, shown: str, where: str) -> tuple[str, bool]:
    if not isinstance(raw, dict):
        raise InvalidInputError(shown, where, "expected an object with a name and an exitCode")
    check_keys(raw, COMMAND_KEYS, shown, where, _SYNONYMS)
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError(shown, f"{where}.name", "missing or empty")
    if "exitCode" not in raw:
        raise InvalidInputError(
            shown, f"{where}.exitCode", "missing; the command's exit code (null if it timed out)"
        )
    code = raw["exitCode"]
    if code is not None and (not isinstance(code, int) or isinstance(code, bool)):
        raise InvalidInputError(shown, f"{where}.exitCode", f"{code!r} is not an integer or null")
    timed_out = raw.get("timedOut", False)
    if not isinstance(timed_out, bool):
        raise InvalidInputError(shown, f"{where}.timedOut", "expected true or false")
    return name, code == 0 and not timed_out


def read_results(doc: Any, shown: str) -> TestRun:
    if not isinstance(doc, dict):
        raise InvalidInputError(shown, "", f"expected a JSON object such as {_FORMAT}")
    check_keys(doc, RESULT_KEYS, shown, "", _SYNONYMS)
    cmds = doc.get("commands")
    if not isinstance(cmds, list) or not cmds:
        raise InvalidInputError(
            shown,
            "commands",
            f"missing or empty; list every command that ran with its exit code, e.g. {_FORMAT}",
        )
    results = [_command(c, shown, f"commands[{i}]") for i, c in enumerate(cmds)]
    failed = tuple(n for n, ok in results if not ok)
    passed = not failed
    if "passed" in doc and doc["passed"] is not passed:
        raise InvalidInputError(
            shown,
            "passed",
            f"{doc['passed']!r} does not match the exit "
            f"codes ({len(failed)} command(s) failed); leave it out or fix it",
        )
    if "failed" in doc and (
        not isinstance(doc["failed"], list) or sorted(map(str, doc["failed"])) != sorted(failed)
    ):
        raise InvalidInputError(
            shown,
            "failed",
            "does not list the commands whose exit code "
            f"is not 0 ({', '.join(failed) or 'none'}); leave it out or fix it",
        )
    return TestRun(passed, failed, len(results))
