"""Issue 7: the bad-input corpus.  Every case gets its exact exit code and message; none prints
a traceback, hangs, or changes a file (a case that is accepted by design, exit 0, may write the
update it asked for).  Cases run in process through ``CliRunner`` (same entry point and error
handler as the script); the start-up of 107 interpreters bought nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import corpus
import pytest

CASES = corpus.cases()


def _param(case: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
    return pytest.param(case, id=case["id"], marks=marks)


def test_issue_7_corpus_is_big_enough() -> None:
    bad = [c for c in CASES if c["exit"] != 0]
    assert len(CASES) >= 60 and len(bad) >= 60
    assert len({c["id"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_issue_7_bad_input(case: dict[str, Any], tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    corpus.prepare(case["setup"], root)
    path = corpus.materialise(case, root, outside)
    before = corpus.snapshot(root)
    proc = corpus.run_case(case, root, path)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "internal error" not in proc.stderr, proc.stderr
    assert proc.returncode == case["exit"], proc.stderr
    if case["stderr"] is not None:
        expected = case["stderr"].replace("{root}", str(root)).replace("{outside}", str(outside))
        assert proc.stderr == expected
    if case["exit"] != 0:
        assert corpus.snapshot(root) == before, "a refused command changed a file"
