"""Issue 23: the red team's smaller causes, each through the entry point a user reaches."""

from __future__ import annotations

from pathlib import Path

import pytest
from clitools import run_cli

from agents_state.store.api import mask_url

SECRET = "hunter2-do-not-print"


@pytest.mark.parametrize(
    "key", ["password", "%70assword", "pass%77ord", "%50ASSWORD", "%70%61%73%73%77%6f%72%64"]
)
def test_issue_23_a_percent_encoded_password_key_is_masked(root: Path, key: str) -> None:
    url = f"postgresql://me@127.0.0.1:1/db?{key}={SECRET}&workflow=../up"
    proc = run_cli(root, "--store", url, "status")
    assert proc.returncode == 2, proc.stderr
    assert SECRET not in proc.stderr
    assert proc.stderr.startswith(
        f"agents-state: error: --store postgresql://me@127.0.0.1:1/db?{key}=***&workflow=../up: "
    )


def test_issue_23_mask_url_masks_every_secret_key_however_written() -> None:
    assert mask_url(f"postgresql://u:{SECRET}@h/db?sslpassword={SECRET}") == (
        "postgresql://u:***@h/db?sslpassword=***"
    )
    assert mask_url(f"postgresql://h/db?a=1&%73slpassword={SECRET}&PassWord={SECRET}") == (
        "postgresql://h/db?a=1&%73slpassword=***&PassWord=***"
    )


def test_issue_23_server_messages_lose_every_spelling_of_the_password() -> None:
    from agents_state.store.pg_url import reason

    url = f"postgresql://u:p%40{SECRET}@h/db?%73slpassword={SECRET}x"
    said = f"failed for p@{SECRET}; sslpassword = {SECRET}x; PASSWORD={SECRET}"
    assert SECRET not in reason(ValueError(said), url)


def test_issue_23_the_crash_log_keeps_no_secret(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A crash (a bug) with the store URL in the arguments, in the environment and in the
    exception's text: neither the one line on stderr nor the logged traceback holds a
    password or a token."""
    import re
    import tempfile

    from agents_state.store.pg import PgStore

    token = "ghp_" + "A1b2C3d4" * 5
    arg_url = f"postgresql://me:{SECRET}@127.0.0.1:1/db?workflow=w"
    env_url = f"postgresql://me@127.0.0.1:1/db?%70assword={SECRET}-env"

    def boom(self: PgStore) -> None:
        raise RuntimeError(f"boom at {self.url} with {token} and password={SECRET}-pair")

    monkeypatch.setattr(PgStore, "connect", boom)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    for argv, env in (
        (["--store", arg_url, "status"], {}),
        (["status"], {"AGENTS_STATE_STORE": env_url}),
    ):
        proc = run_cli(root, *argv, env=env)
        assert proc.returncode == 1, proc.stderr
        m = re.search(r"traceback written to (\S+)\n$", proc.stderr)
        assert m, proc.stderr
        text = Path(m.group(1)).read_text()
        assert "RuntimeError: boom at postgresql://me" in text
        for out in (text, proc.stderr):
            assert SECRET not in out and token not in out, out
        assert "***" in proc.stderr
