"""Configuration layers, later wins, deep-merged, each value traced to its layer.

1. built-in defaults   2. ``~/.claude/subagents-config.json``   3. ``.claude/subagents-config.json``
4. ``.agents/config.json``   5. ``AGENTS_STATE_CFG_<path>`` environment variables (path parts
joined by ``__``, e.g. ``AGENTS_STATE_CFG_stages__PLAN__planning__mode=single``; values are JSON
when they parse as JSON, else strings)   6. command-line flags: ``--set KEY=VALUE``, repeatable,
before or after the subcommand (dotted keys, ``--set stages.PLAN.planning.mode=single``; values
as for the environment), each pair validated on its own so that an error names it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agents_state.errors import ConfigError
from agents_state.jsonio import loads_strict, read_input_bytes
from agents_state.records.base import Record, RecordError

if TYPE_CHECKING:  # the records load with the first layer read (``any_layer`` needs none)
    from pathlib import Path

    from agents_state.config import Config

__all__ = [
    "ENV_PREFIX",
    "FLAGS_LAYER",
    "LoadedConfig",
    "any_layer",
    "config_files",
    "flag_layer",
    "load_config",
    "validate_file",
]

ENV_PREFIX = "AGENTS_STATE_CFG_"
FLAGS_LAYER = "command line (--set)"


class LoadedConfig:
    """The effective configuration and, per dotted key, the layer that set it (``sources``,
    worked out when asked: only ``config show`` does)."""

    __slots__ = ("_layers", "_sources", "config")

    def __init__(self, config: Config, layers: list[tuple[str, dict[str, Any]]]) -> None:
        self.config = config
        self._layers = layers  # (layer's name, its data) in order, later wins
        self._sources: dict[str, str] | None = None

    @property
    def layers(self) -> list[tuple[str, dict[str, Any]]]:
        """(layer's name, its data) of every layer over the defaults, in order."""
        return list(self._layers)

    @property
    def sources(self) -> dict[str, str]:
        """Dotted key -> the layer that set it (``default`` for the built-in values)."""
        if self._sources is None:
            from agents_state.config import Config

            sources = dict.fromkeys(_leaves(Config().model_dump()), "default")
            for name, data in self._layers:
                sources.update(dict.fromkeys(_leaves(data), name))
            self._sources = sources
        return self._sources


def config_files(root: Path | str) -> list[tuple[str, str]]:
    """The files of layers 2 to 4, as plain strings (``status`` and ``next`` never load
    ``pathlib``, docs/performance.md)."""
    home = os.path.expanduser(os.environ.get("HOME", "~"))
    return [
        ("user", os.path.join(home, ".claude", "subagents-config.json")),
        ("project", os.path.join(root, ".claude", "subagents-config.json")),
        ("agents", os.path.join(root, ".agents", "config.json")),
    ]


def any_layer(root: str, flags: bool) -> bool:
    """Whether a layer over the built-in defaults exists: a file of layers 2 to 4, an
    ``AGENTS_STATE_CFG_`` variable or ``--set`` flags (``flags``).  Without one the configuration
    is ``Config()``, and a transition takes its policy without loading the records (``App``)."""
    return (
        flags
        or any(os.path.lexists(path) for _, path in config_files(root))
        or any(name.startswith(ENV_PREFIX) for name in os.environ)
    )


def _leaves(data: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.extend(_leaves(v, key + "."))
        else:
            out.append(key)
    return out


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _suggest(model: type[Record], loc: tuple[Any, ...]) -> str:
    cls: Any = model
    for part in loc[:-1]:
        f = cls.model_fields().get(part)
        if f is None or not (isinstance(f.annotation, type) and issubclass(f.annotation, Record)):
            return ""
        cls = f.annotation
    names = list(cls.model_fields())
    from agents_state.strictkeys import closest

    close = closest(str(loc[-1]), names)
    known = f"; known keys here: {', '.join(names)}" if names else ""
    return f" (did you mean '{close}'?)" if close else known


def _validate(data: dict[str, Any], shown: str) -> Config:
    from agents_state.config import Config

    try:
        return Config.model_validate(data)
    except RecordError as e:
        from agents_state.records.problems import field_problems, got  # errors only

        first = field_problems(e)[0]
        if first.kind == "extra_forbidden":
            raise ConfigError(
                shown, first.path, "unknown key" + _suggest(Config, first.loc)
            ) from None
        msg = first.msg.removeprefix("Value error, ")
        raise ConfigError(shown, first.path, msg + got(first.input)) from None


def _read_layer(path: Path | str, shown: str) -> dict[str, Any]:
    data = loads_strict(read_input_bytes(path, shown), shown)
    if not isinstance(data, dict):
        raise ConfigError(shown, "", "expected a JSON object")
    _validate(data, shown)  # each layer must be valid on its own, so errors name the right file
    return data


def _env_layer() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, raw in sorted(os.environ.items()):
        if not name.startswith(ENV_PREFIX):
            continue
        parts = name[len(ENV_PREFIX) :].split("__")
        value = _json_or_text(raw)
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    return out


def _json_or_text(raw: str) -> Any:
    import json

    try:
        return json.loads(raw)
    except ValueError:
        return raw


def flag_layer(pairs: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` pairs as one layer (later pairs win); each pair is checked alone, so
    the one-line error names the flag and the key (exit 5, as a bad file layer)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        parts = key.strip().split(".")
        if not sep or not all(p.strip() for p in parts):
            raise ConfigError(
                "--set",
                "",
                f"{pair!r} is not KEY=VALUE with a dotted key, "
                "e.g. --set stages.PLAN.planning.mode=single",
            )
        one: dict[str, Any] = {}
        node = one
        for p in parts[:-1]:
            node = node.setdefault(p.strip(), {})
        node[parts[-1].strip()] = _json_or_text(raw)
        _validate(one, "--set")
        out = _merge(out, one)
    return out


def load_config(root: Path | str, flags: dict[str, Any] | None = None) -> LoadedConfig:
    merged: dict[str, Any] = {}
    layers: list[tuple[str, dict[str, Any]]] = []
    for layer, path in config_files(root):
        if os.path.isfile(path):
            shown = path if layer == "user" else os.path.relpath(path, root)
            layers.append((f"{layer} ({shown})", _read_layer(path, shown)))
    env = _env_layer()
    if env:
        _validate(env, "environment " + ENV_PREFIX + "*")
        layers.append(("environment", env))
    if flags:
        layers.append((FLAGS_LAYER, flags))
    for _, data in layers:
        merged = _merge(merged, data)
    return LoadedConfig(_validate(merged, "effective configuration"), layers)


def validate_file(path: Path, shown: str) -> Config:
    return _validate(_read_layer(path, shown), shown)
