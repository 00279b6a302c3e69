"""Unknown keys in a file a model wrote are refused with a did-you-mean (pure).

A misspelt key in a review, a tasks file or a test results file would otherwise be dropped without
a word and silently cost work (a review with ``"Issues"`` passing as clean, ``requires`` instead of
``dependencies`` running dependent tasks in parallel).  ``check_keys`` names the file, the key and
the nearest known key, so the model that wrote it can fix it in one try.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agents_state.errors import InvalidInputError

__all__ = ["CUTOFF", "check_keys", "closest", "suggest"]

CUTOFF = 0.75  # difflib similarity a near miss needs: one slip in a short key, not a new word


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name nearest to ``word`` (never ``word`` itself), or None: the one did-you-mean
    rule for keys, settings, fields and profile names.  Ties go to the first in sorted order."""
    import difflib  # only on error paths

    names = sorted(n for n in set(known) if n != word)
    close = difflib.get_close_matches(word, names, n=1, cutoff=CUTOFF)
    return close[0] if close else None


def suggest(key: str, known: Iterable[str], synonyms: Mapping[str, str] | None = None) -> str:
    """`` (did you mean 'x'?)`` or the list of known keys."""
    names = list(known)
    hit = (synonyms or {}).get(key) or (synonyms or {}).get(key.lower())
    if hit is None:
        lowered = {n.lower(): n for n in names}
        hit = lowered.get(key.lower())
    if hit is None:
        hit = closest(key, names)
    if hit is not None:
        return f"did you mean '{hit}'?"
    return f"known keys: {', '.join(names)}"


def check_keys(
    doc: Mapping[str, Any],
    known: Iterable[str],
    file: str,
    where: str,
    synonyms: Mapping[str, str] | None = None,
) -> None:
    """Refuse the first key of ``doc`` not in ``known`` (``where`` is the path to ``doc``)."""
    names = tuple(known)
    for key in doc:
        if key not in names:
            path = f"{where}.{key}" if where else str(key)
            hint = suggest(str(key), names, synonyms)
            raise InvalidInputError(file, path, f"unknown key; {hint}")
