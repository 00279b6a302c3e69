"""Fixtures for the PostgreSQL store: one server per session, one workflow name per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from .pgserver import PgServer, pg_bindir


def _missing(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI: {why}; .ci/run installs PostgreSQL (apt-get install postgresql)")
    pytest.skip(why)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _missing("psycopg is not installed (pip install -e '.[test,postgres]')")
    bindir = pg_bindir()
    if bindir is None:
        _missing("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
        raise AssertionError  # unreachable
    server = PgServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    return pg_server.url(f"t-{uuid.uuid4().hex[:12]}")
