"""What the scans of the project (``secretscan``) and of its skipped folders (``vendorscan``,
``vendorcache``) share: the caps, the remembered files' folder and write, the name prefilter.
Its own module so that neither scan imports the other's module back.  Standard library only."""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["SCAN_CAP", "cache_dir", "write_cache"]

# files and folders the scan may visit; the walk's own deadline (hooks.walk, 5 s) is the real
# bound.  Past either it gives up and the call is denied (fail closed); once done, the answer is
# remembered, so a large project pays the walk once, not on every call
SCAN_CAP = 1_000_000
_SETTLED_NS = 2_000_000_000  # a folder's time older than this is trusted


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "agents-state")


def write_cache(path: str, data: bytes) -> bool:
    """Write one of the sandbox's remembered files (``cache_dir``) whole, through the store's
    atomic write; ``False`` when it cannot (the caller then does the work again next time)."""
    from pathlib import Path  # only when something is remembered

    from agents_state.errors import StorageIOError
    from agents_state.store.fsops import atomic_write

    try:
        atomic_write(Path(path), data, path)
    except (OSError, StorageIOError):
        return False
    return True


def _prefilter(root: str, home: str) -> Callable[[str, str], bool]:
    """A quick test that every credential file under ``root`` passes (a name the catalogue's
    names match, or a folder that starts one of its paths): ``credential_entry`` then decides.
    One compiled expression for thousands of files instead of the catalogue entry by entry."""
    from agents_state.credentials import _markers, _name_fragments

    markers = _markers()
    parts = set(root.lower().split("/"))
    if markers is None or not markers.isdisjoint(parts) or f"{home}/".startswith(f"{root}/"):
        return lambda rel, name: True  # the root itself can match: judge every file
    if "" in _name_fragments():
        return lambda rel, name: True  # a name entry with no plain run: judge every file
    # every name the catalogue's names match holds one of these runs (credentials._literal_run)
    runs = sorted(_name_fragments(), key=len, reverse=True)
    named = re.compile("|".join(re.escape(f) for f in runs), re.I).search

    def maybe(rel: str, name: str) -> bool:
        if named(name):
            return True
        return "/" in rel and not markers.isdisjoint(rel.lower().split("/")[:-1])

    return maybe
