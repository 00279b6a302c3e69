"""What a call will touch, decided on the file system: which credential file it would reach.

A path is resolved against the call's working directory, then checked three ways: its name
(case-insensitive, ``credentials.CATALOGUE``), the file it leads to through symbolic links
(``realpath``), and, when the file has more than one name, its inode against every credential
file found in the project and the home directory (a hard link under another name).  Searches are
expanded: a Grep's ``path`` and ``glob`` and a shell glob are walked (``walk.walk``, bounded) and
every file they would read is checked.  (A Glob call lists names and reads nothing: not checked.)

Each check returns ``None`` or the one-line reason for a denial.
"""

from __future__ import annotations

import os
import stat
import time

from agents_state.credentials import credential_entry, home_entries
from agents_state.globs import glob_regex, has_glob
from agents_state.hooks.walk import WALK_CAP, WALK_SECONDS, WalkCapError, git_ignored, walk

__all__ = ["PathGuard", "Undecided", "split_grep_globs"]


_SHOWN = "\0shown\0"  # stands for the path's name until a reason is returned


class Undecided(str):
    """A reason that says the guard could not decide (too many files), not that a credential
    was found."""


def split_grep_globs(value: str) -> list[str]:
    """Claude Code's Grep splits ``glob`` on white space, then on commas outside braces."""
    out: list[str] = []
    for part in value.split():
        out.extend([part] if "{" in part and "}" in part else [p for p in part.split(",") if p])
    return out


class PathGuard:
    """Checks for one tool call: ``cwd`` is the call's working directory."""

    def __init__(self, root: str, cwd: str, home: str | None = None, cap: int = WALK_CAP):
        self.root, self.cwd, self.cap = root, cwd, cap
        self.home = home if home is not None else os.path.expanduser("~")
        self.deadline = time.monotonic() + WALK_SECONDS  # one budget for all walks of a call
        self._inodes: dict[tuple[int, int], str] | None = None
        self._inodes_error: str | None = None

    # -- single paths -------------------------------------------------------------------------

    def joined(self, raw: str) -> str:
        """``raw`` against the working directory, ``~/`` expanded, ``..`` kept: the kernel
        resolves ``link/..`` to the parent of the link's target, not to the link's folder."""
        path = raw
        if path == "~" or path.startswith("~/"):
            path = self.home + path[1:]
        return os.path.join(self.cwd, path)

    def resolve(self, raw: str) -> str:
        return os.path.normpath(self.joined(raw))

    def check_path(self, raw: str) -> str | None:
        """Why ``raw`` (as a tool would open it) reaches a credential file, or ``None``."""
        return self._check(self.resolve(raw), raw, None, joined=self.joined(raw))

    def _check(
        self,
        path: str,
        shown: str | None,
        entry: os.DirEntry[str] | None,
        linked: bool = False,
        joined: str | None = None,
    ) -> str | None:
        """``shown`` is how the reason names the path (default: relative to the cwd)."""
        reason = self._check_named(path, entry, linked, joined or path)
        if reason is None:
            return None
        named = reason.replace(_SHOWN, self._show(path) if shown is None else shown)
        return Undecided(named) if isinstance(reason, Undecided) else named

    def _check_named(
        self, path: str, entry: os.DirEntry[str] | None, linked: bool, joined: str
    ) -> str | None:
        shown = _SHOWN
        found = credential_entry(path, self.home)
        if found:
            return f"{shown}: a credential file ({found})"
        try:
            is_link = linked or entry is None or entry.is_symlink()
        except OSError:
            is_link = True
        real = os.path.realpath(joined) if is_link else path
        if real != path:
            found = credential_entry(real, self.home)
            if found:
                return f"{shown}: a link to the credential file {real} ({found})"
        try:
            st = entry.stat() if entry is not None else os.stat(real)
        except OSError:
            return None
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            return self._hard_link(shown, st)
        return None

    def _hard_link(self, shown: str, st: os.stat_result) -> str | None:
        inodes = self._credential_inodes()
        if inodes is None:
            return Undecided(
                f"cannot tell whether {shown} is a hard link to a credential "
                f"file ({self._inodes_error})"
            )
        other = inodes.get((st.st_dev, st.st_ino))
        if other:
            return f"{shown}: a hard link to the credential file {other}"
        return None

    def _credential_inodes(self) -> dict[tuple[int, int], str] | None:
        """The (device, inode) of every credential file in the home directory and the project."""
        if self._inodes is not None or self._inodes_error is not None:
            return self._inodes
        found: dict[tuple[int, int], str] = {}
        for rel in home_entries():
            path = os.path.join(self.home, rel)
            if os.path.isdir(path):
                self._collect(path, found, all_files=True)
            else:
                _add(found, path)
        try:
            self._collect(self.root, found, all_files=False)
        except WalkCapError as e:
            self._inodes_error = (
                f"the project could not be listed in {WALK_SECONDS:g} seconds"
                if e.timed_out
                else f"more than {e.cap:,} files in the project to compare"
            )
            return None
        self._inodes = found
        return found

    def _collect(self, top: str, found: dict[tuple[int, int], str], all_files: bool) -> None:
        try:
            for rel, _entry, _linked in walk(top, self.cap, deadline=self.deadline):
                path = os.path.join(top, rel)
                if all_files or credential_entry(path, self.home):
                    _add(found, path)
        except WalkCapError:
            if not all_files:
                raise

    # -- searches -----------------------------------------------------------------------------

    def check_grep(self, path: str | None, glob: str | None, what: str = "") -> str | None:
        """``what`` names the search in a reason (default: Grep over PATH)."""
        try:
            return self._grep(path, glob, what)
        except _BadGlob as e:
            return Undecided(str(e))

    def expand(self, word: str) -> str | None:
        try:
            return self._expand(word)
        except _BadGlob as e:
            return Undecided(str(e))

    def _grep(self, path: str | None, glob: str | None, what: str = "") -> str | None:
        """Claude Code's Grep: ripgrep over ``path`` (default: the working directory), hidden
        files included, git-ignored ones skipped unless a ``glob`` names them."""
        base_raw = path or "."
        reason, base = self._folder(base_raw, base_raw)
        if reason or base is None:
            return reason
        positive = [g for g in split_grep_globs(glob or "") if not g.startswith("!")]
        # negated globs only narrow what ripgrep reads: ignoring them checks more, never less
        ignored = git_ignored(base) if not positive else None
        matchers = [_matcher(g.lstrip("/")) for g in positive]
        what = what or f"Grep over {base_raw!r}" + (f" with glob {glob!r}" if glob else "")
        return self._search(what, base, matchers, ignored)

    def _expand(self, word: str) -> str | None:
        """A shell word with unquoted glob characters: every file it could expand to."""
        folder, rest, shown = self._split_pattern(word, ".")
        reason, base = self._folder(folder, shown)
        if reason or base is None or rest is None:
            return reason
        # bash reads 'a*//b' and 'a*/./b' as 'a*/b' (issue 32); the walk never names '..'
        parts = [p for p in rest.split("/") if p not in ("", ".")]
        if ".." in parts:
            return Undecided(f"the pattern {word!r} climbs with '..' after a glob")
        return self._search(f"the pattern {word!r}", base, [_matcher("/".join(parts))], None)

    def _folder(self, raw: str, shown: str) -> tuple[str | None, str | None]:
        """(why ``raw`` itself is refused, the real folder to walk or None if not a folder)."""
        reason = self._check(self.resolve(raw), shown, None, joined=self.joined(raw))
        real = os.path.realpath(self.joined(raw))
        return reason, (real if os.path.isdir(real) else None)

    def _split_pattern(self, pattern: str, base_raw: str) -> tuple[str, str | None, str]:
        """(the literal leading folder, as a path from the cwd; the glob part or None; shown)."""
        parts = pattern.split("/")
        lead: list[str] = []
        while parts and not has_glob(parts[0]):
            lead.append(parts.pop(0))
        prefix = "/".join(lead)
        if pattern.startswith("/"):
            folder = prefix or "/"
        elif pattern.startswith("~"):
            folder = prefix
        else:
            folder = os.path.join(base_raw, prefix) if prefix else base_raw
        shown = pattern if base_raw == "." else f"{base_raw}/{pattern}"
        return folder, ("/".join(parts) if parts else None), shown

    def _show(self, path: str) -> str:
        """``path`` relative to the call's working directory when inside it."""
        cwd = self.cwd.rstrip("/")
        return path[len(cwd) + 1 :] if path.startswith(cwd + "/") else path

    def _search(
        self, what: str, base: str, matchers: list[_Matcher], ignored: set[str] | None
    ) -> str | None:
        ignored_dirs = {p.rstrip("/") for p in ignored or () if p.endswith("/")}

        def prune(rel: str) -> bool:
            return rel in ignored_dirs and not any(m.matches(rel) for m in matchers)

        try:
            for rel, entry, linked in walk(
                base, self.cap, prune if ignored_dirs else None, self.deadline
            ):
                if matchers:
                    if not any(m.matches(rel) for m in matchers):
                        continue
                elif ignored and rel in ignored:
                    continue
                reason = self._check(entry.path, None, entry, linked)
                if isinstance(reason, Undecided):
                    return Undecided(f"{what}: {reason}")
                if reason:
                    return f"{what} would reach {reason}"
        except WalkCapError as e:
            if e.timed_out:
                return Undecided(
                    f"{what} could not be checked for credential files in "
                    f"{WALK_SECONDS:g} seconds ({e.cap:,} files and folders seen); "
                    "give a narrower path or pattern"
                )
            return Undecided(
                f"{what} reaches more than {e.cap:,} files and folders, too many "
                "to check for credential files; give a narrower path or pattern"
            )
        return None


class _Matcher:
    """One glob against a path relative to the search folder, at any depth (a glob without
    ``/`` against the file name; one with ``/`` from any folder down, not only from the top)
    and case-insensitively: so that it matches at least what ripgrep would."""

    def __init__(self, glob: str) -> None:
        import re  # only for a search with a glob

        body = glob_regex(glob.strip("/") or "**")
        try:
            import warnings  # only for a pattern a model wrote

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "possible set difference" and the like
                self.regex = re.compile(f"(?:.*/)?{body}", re.I | re.S)
        except re.error as e:
            raise _BadGlob(f"the pattern {glob!r} is not a glob the guard can read ({e})") from e

    def matches(self, rel: str) -> bool:
        return self.regex.fullmatch(rel) is not None


class _BadGlob(ValueError):
    pass


def _matcher(glob: str) -> _Matcher:
    return _Matcher(glob)


def _add(found: dict[tuple[int, int], str], path: str) -> None:
    try:
        st = os.stat(path)
    except OSError:
        return
    if stat.S_ISREG(st.st_mode):
        found.setdefault((st.st_dev, st.st_ino), path)
