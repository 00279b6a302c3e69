"""Issue 18, start-up: the hook's cheaper paths give the answers of the paths they replace.

- ``hooks.hookjson.loads`` (the standard library's parser for small documents) reads every
  document as ``orjson.loads`` does, and fails with orjson's own error text;
- the credential catalogue compiles its name patterns only when a file name holds a literal
  part of one: the prefilter never hides a name the full pattern would match;
- (issue 26) ``hookjson`` calls json's C scanner and encoder without the json package: they
  accept, read and write what ``json.loads`` and ``json.dumps`` do; an agent file's
  ``profile:`` line and a chain file's name are read without ``re`` as the expressions read them.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_state import credentials
from agents_state.globs import glob_regex
from agents_state.hooks import agentmap, hookjson, workflow_root

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _read(loads: Any, raw: bytes) -> tuple[str, str]:
    """What a parser made of ``raw``: its value written out (types and all: ``1`` and ``1.0``
    differ there), or its error text."""
    try:
        value = loads(raw)
    except orjson.JSONDecodeError as e:
        return "error", str(e)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # the deepest case nests 1,023 lists
    try:
        return "ok", json.dumps(value, ensure_ascii=True)
    finally:
        sys.setrecursionlimit(limit)


def _same(raw: bytes) -> None:
    assert _read(hookjson.loads, raw) == _read(orjson.loads, raw)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(JSON)
def test_loads_reads_what_orjson_reads(value: Any) -> None:
    _same(json.dumps(value).encode())  # \u escapes, surrogate pairs among them
    _same(json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize(
    "raw",
    [
        b"[NaN]",
        b"[Infinity, -Infinity]",
        b"1e400",
        b"-1e400",
        b"123456789012345678901234567890",
        b"18446744073709551615",
        b"18446744073709551616",
        b"-9223372036854775809",
        b'"\\ud800"',
        b'"\\ud83d\\ude00"',
        b'"\\uDBFF"',
        b"\xef\xbb\xbf{}",
        b'{"a": "\xff"}',
        b"",
        b"   ",
        b"{",
        b'{"a": 1,}',
        b'{"a": 1} x',
        b'{"a": 1, "a": 2}',
        b"[" * 1023 + b"]" * 1023,
        b"[" * 1025 + b"]" * 1025,
        b'"tab\there"',
        b"0.1",
        b"-0",
        b"1E-400",
    ],
)
def test_loads_agrees_with_orjson_on_the_edges(raw: bytes) -> None:
    _same(raw)


def test_large_documents_go_to_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = orjson.dumps({"tasks": [{"id": f"t{i}", "n": i} for i in range(3000)]})
    _same(raw)
    monkeypatch.setattr(hookjson, "ORJSON_ABOVE", len(raw) - 1)
    monkeypatch.setattr(hookjson, "json", None)  # the standard parser must not be asked
    _same(raw)


def test_dumps_writes_what_orjson_writes() -> None:
    data = {"hookSpecificOutput": {"reason": 'é 中 \n "q" \\ </tag>', "n": [1, 2.5, None, True]}}
    assert hookjson.dumps(data) == orjson.dumps(data)


NAME_PATTERNS = [p for p, _ in credentials.CATALOGUE if "/" not in p]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    st.sampled_from(NAME_PATTERNS).flatmap(lambda p: st.from_regex(glob_regex(p), fullmatch=True))
)
def test_no_name_the_catalogue_matches_escapes_the_prefilter(name: str) -> None:
    name = name.replace("/", "_")
    full = credentials._name_re().fullmatch(name) is not None
    if full:
        assert any(f in name.lower() for f in credentials._name_fragments())


@pytest.mark.parametrize("pattern", NAME_PATTERNS)
def test_each_name_pattern_has_a_fragment_its_names_hold(pattern: str) -> None:
    rx = re.compile(glob_regex(pattern), re.I | re.S)
    run = credentials._literal_run(pattern)
    assert run, pattern
    for example in (pattern.replace("*", "X").replace("{", "").split(",")[0], pattern):
        if rx.fullmatch(example):
            assert run in example.lower()


@pytest.mark.parametrize(
    ("path", "entry"),
    [  # what the catalogue answered before the prefilter (one compile of everything)
        ("/p/a.ts", None),
        ("/p/.env", ".env, environment file"),
        ("/p/.ENV.local", ".env*, environment file"),
        ("/p/prod.env", "*.env, environment file"),
        ("/p/server.PEM", "*.pem, private key or certificate"),
        ("/p/id_ed25519", "id_ed25519*, SSH private key"),
        ("/p/id_rsa.pub", None),
        ("/p/.env.example", None),
        ("/p/app-secrets.yaml", "*secrets.{json,yaml,yml,toml,env}, secrets file"),
        ("/home/u/.ssh/x", ".ssh/**, SSH keys and configuration"),
        ("/p/.ssh/config", ".ssh/**, SSH keys and configuration"),
        ("/home/u/.config/pip/pip.conf", "~/.config/pip/pip.conf, pip index credentials"),
        ("/p/.config/pip/pip.conf", None),
        ("/proc/1/environ", "proc/*/environ, process environment"),
        ("/p/x/.docker/config.json", ".docker/config.json, Docker registry credentials"),
        ("/p/service_account-1.json", "service[-_]account*.json, cloud service account key"),
        ("/p/Credentials.TOML", "credentials.{json,toml,yaml,yml}, credentials"),
        ("/p/my.tfstate.backup", "*.tfstate.backup, Terraform state (holds secrets in plain text)"),
    ],
)
def test_entries_are_found_through_the_prefilter(path: str, entry: str | None) -> None:
    assert credentials.credential_entry(path, home="/home/u") == entry


# Issue 26: the hooks load neither json's Python modules nor ``re`` for the common call.

DUMPABLE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and infinities too: json.dumps writes them, so must dumps
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(DUMPABLE)
def test_dumps_writes_what_json_dumps_writes(value: Any) -> None:
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text = expected.encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate: both refuse it the same way
        with pytest.raises(UnicodeEncodeError) as raised:
            hookjson.dumps(value)
        assert str(raised.value) == str(e)
        return
    assert hookjson.dumps(value) == text


@pytest.mark.parametrize(
    "value",
    [object(), {1j: 1}, {"a": {1, 2}}, float("nan")],
    ids=["object", "complex-key", "set", "nan"],
)
def test_dumps_refuses_or_writes_as_json_does(value: Any) -> None:
    try:
        expected = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)) as raised:
            hookjson.dumps(value)
        assert str(raised.value) == str(e)
    else:
        assert hookjson.dumps(value) == expected


def test_dumps_refuses_a_circular_reference_as_json_does() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        hookjson.dumps(loop)


def _scanned(parse: Any, text: str) -> tuple[str, str]:
    try:
        value = parse(text)
    except (ValueError, RecursionError, StopIteration, SystemError):
        return "refused", ""
    return "ok", json.dumps(value, ensure_ascii=True)


def _json_loads(text: str) -> Any:
    return json.loads(
        text,
        parse_constant=hookjson._constant,
        parse_float=hookjson._float,
        parse_int=hookjson._int,
    )


@settings(max_examples=300, deadline=None, derandomize=True)
@given(JSON)
def test_the_c_scanner_reads_what_json_loads_reads(value: Any) -> None:
    """The C scanner called directly (no json.decoder) accepts what json.loads with the same
    hooks accepts, and gives its very value; orjson judges the rest (above)."""
    text = f" \n{json.dumps(value, indent=1)}\r\n\t"
    assert _scanned(hookjson._standard_loads, text) == _scanned(_json_loads, text)


@pytest.mark.parametrize(
    "text",
    ["", " ", "[1] x", '{"a": 1}  ', "\ufeff{}", "[1,]", "NaN", "1e400", "\f1", "1\f", '"\x01"'],
)
def test_the_c_scanner_refuses_what_json_loads_refuses(text: str) -> None:
    assert _scanned(hookjson._standard_loads, text) == _scanned(_json_loads, text)


FRONT = st.lists(
    st.sampled_from(
        [
            "profile:",
            "profile:reader",
            "profile:r",
            "profile: reader",
            "profile:  writer+Bash  ",
            "profile: 'reader'",
            'profile: "researcher"',
            "profile:\treader",
            "profile: reader\r",
            "profile:",
            "  profile: reader",
            "profile: two words",
            "profile: é",
            "name: x",
            "",
            " ",
            "reader",
            "profile: reader # note",
            "Profile: reader",
            "profile: +",
            "profile: reader'",
            "profile: 'reader",
            "profile: ''",
        ]
    )
    | st.text(alphabet="profile: \t\r\n'\"+-.abc\u00a0\u2028", max_size=30),
    max_size=5,
).map("\n".join)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(FRONT)
def test_the_profile_line_is_read_as_the_expression_reads_it(front: str) -> None:
    m = re.search(agentmap.FRONT_PROFILE, front, re.M)
    assert agentmap.front_profile(front) == (m.group(1) if m else None)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet="az09-Z\n_é٣", max_size=12))
def test_a_chain_file_name_is_read_as_the_expression_reads_it(stem: str) -> None:
    expected = re.fullmatch(r"[a-z]+-[0-9]+", stem) is not None
    assert workflow_root._is_chain_id(stem) is expected


def test_the_collector_is_left_as_it_was() -> None:
    """The parse pauses the cyclic collector (it makes no cycles) and restores it, refused
    documents included."""
    import gc

    assert gc.isenabled()
    for raw in (b'{"a": [1, 2]}', b"{", b"[NaN]"):
        with contextlib.suppress(ValueError):
            hookjson.loads(raw)
        assert gc.isenabled()
    gc.disable()
    try:
        hookjson.loads(b"[1]")
        assert not gc.isenabled()
    finally:
        gc.enable()
