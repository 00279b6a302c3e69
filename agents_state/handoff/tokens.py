"""An offline token estimate for handoff text (no tokenizer download, no network).

Design 001 caps a ``context_summary`` at 500 tokens.  The exact count depends on the model's
tokenizer, which is not available offline, so this is a documented, deterministic estimate that
errs on the high side for prose and code alike (see ``docs/protocol.md``):

- a run of ASCII letters counts one token per started 5 characters (``auth`` 1,
  ``authentication`` 3);
- a run of digits counts one token per started 3 digits (``2026`` 2);
- every other visible ASCII character (punctuation, symbols) counts 1;
- every non-ASCII character counts 1 (CJK, emoji and accents are costly in BPE vocabularies);
- whitespace is free.

For English prose this lands 10-30% above what BPE tokenizers of current models report, so a summary
the estimate accepts fits the cap in practice.
"""

from __future__ import annotations

import re

__all__ = ["SUMMARY_TOKEN_LIMIT", "estimate_tokens"]

SUMMARY_TOKEN_LIMIT = 500

_PIECES = re.compile(r"[A-Za-z]+|[0-9]+|\S")


def estimate_tokens(text: str) -> int:
    """The estimated token count of ``text`` (0 for empty or blank text)."""
    total = 0
    for m in _PIECES.finditer(text):
        piece = m.group()
        first = piece[0]
        if first.isascii() and first.isalpha():
            total += -(-len(piece) // 5)
        elif first.isascii() and first.isdigit():
            total += -(-len(piece) // 3)
        else:
            total += 1
    return total
