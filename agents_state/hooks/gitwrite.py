"""git and gh writes for the ``committer`` profile (git-executor, FINAL phase 4.3).

On top of the read-only allowlist (``bashguard``) the profile may create and switch to a branch,
stage named files, commit, push to a remote by name and open or look at a pull request -- and
nothing else: no history rewriting, no force, no skipped hooks, no push to a URL, no ``gh api``
or ``gh auth``, no whole-tree staging.  Each sub-command's options are parsed as git and gh parse
them (``-xVALUE``, ``--name=value``, a cluster ``-sm MSG``): an option not listed here is denied,
so which word is a value and which a path is never a guess.  Every path argument is still
checked by ``bashguard`` (folders given to ``git add`` / ``git commit`` are walked as git would);
the text of a commit message or pull request title or body is not taken for a path.
"""

from __future__ import annotations

import os
import re

from agents_state.hooks.pathguard import Undecided

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agents_state.hooks.pathguard import PathGuard

__all__ = ["GH_PR", "GIT_WRITES", "check_gh", "check_git_write", "git_scope", "text_values"]

GIT_WRITES = frozenset({"add", "commit", "push", "switch", "checkout", "branch"})
GH_PR = frozenset({"create", "view", "list"})


class _Options:
    """One command's options: flags, options that take a value, and the refused ones (with
    the reason); ``text`` are those whose value is free text."""

    def __init__(
        self,
        flags: str,
        valued: str,
        refused: str,
        why: str,
        text: str = "",
    ) -> None:
        self.flags, self.valued = frozenset(flags.split()), frozenset(valued.split())
        self.refused, self.why, self.text = frozenset(refused.split()), why, frozenset(text.split())


_GIT = {
    "add": _Options(
        "-n --dry-run -v --verbose -N --intent-to-add --refresh --ignore-errors "
        "--ignore-missing --renormalize --sparse",
        "--chmod",
        "-A --all --no-ignore-removal -u --update -f --force -i --interactive -p --patch "
        "-e --edit --pathspec-from-file --pathspec-file-nul",
        "stage files by name only: no whole-tree, forced, interactive or listed-in-a-file adds",
    ),
    "commit": _Options(
        "-s --signoff --no-signoff -S --gpg-sign --no-gpg-sign -q --quiet -v --verbose "
        "--allow-empty --allow-empty-message --no-edit -o --only -i --include --dry-run "
        "--status --no-status --porcelain --short --branch --long -z --null --reset-author",
        "-m --message -F --file -C --reuse-message -t --template --author --date --cleanup "
        "--trailer --fixup --squash",
        "-n --no-verify --amend -a --all -p --patch --interactive -e --edit -c "
        "--reedit-message --no-post-rewrite --pathspec-from-file --pathspec-file-nul",
        "commit without rewriting history, skipping hooks, an editor or staging everything",
        "-m --message",
    ),
    "push": _Options(
        "-u --set-upstream -n --dry-run -v --verbose -q --quiet --porcelain --atomic "
        "--no-atomic --signed --no-signed --progress --no-progress --thin --no-thin --verify "
        "-4 --ipv4 -6 --ipv6 --no-recurse-submodules",
        "-o --push-option --recurse-submodules",
        "-f --force --force-with-lease --no-force-with-lease --force-if-includes --mirror "
        "--all --branches --tags --follow-tags -d --delete --prune --no-verify "
        "--receive-pack --exec --repo",
        "push without force, deletion, mirroring, all branches or tags, or another program",
    ),
}
_GH_WHY = "gh works on this repository only, without an editor"
_GH = {
    "create": _Options(
        "-d --draft -f --fill --fill-first --fill-verbose --no-maintainer-edit --dry-run -w --web",
        "-t --title -b --body -F --body-file -B --base -H --head -l --label -a --assignee "
        "-r --reviewer -m --milestone -p --project -T --template --recover",
        "-R --repo -e --editor",
        _GH_WHY,
        "-t --title -b --body",
    ),
    "view": _Options(
        "-c --comments -w --web", "-q --jq -t --template --json", "-R --repo", _GH_WHY
    ),
    "list": _Options(
        "-d --draft -w --web",
        "-A --author -a --assignee -B --base -H --head -q --jq --json -l --label -L --limit "
        "-S --search -s --state -t --template --app",
        "-R --repo",
        _GH_WHY,
    ),
}
_REMOTE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # a remote's name, not a URL or path
_REF = re.compile(r"^[A-Za-z0-9_@][A-Za-z0-9._/@{}^~-]*$")
_WHOLE_TREE = frozenset({".", "./", ":", ":/", "*"})


class _Parsed:
    def __init__(self) -> None:
        self.positional: list[str] = []
        self.text: set[int] = set()  # indexes (into the arguments) of free-text values
        self.why: str | None = None


def _parse(shown: str, args: list[str], opts: _Options) -> _Parsed:
    """``args`` as git's and gh's option parsers read them; ``why`` is set at the first option
    that is refused or unknown."""
    out = _Parsed()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out.positional.extend(args[i + 1 :])
            break
        if not arg.startswith("-") or arg == "-":
            out.positional.append(arg)
        elif arg.startswith("--"):
            name, eq, _value = arg.partition("=")
            why = _judge(shown, arg, name, opts)
            if why:
                out.why = why
                return out
            if name in opts.valued and not eq:
                i += 1
                if name in opts.text:
                    out.text.add(i)
            elif name in opts.text:
                out.text.add(i)
        else:  # short options, clustered (-sm MSG) or with their value attached (-mMSG)
            for k, letter in enumerate(arg[1:], 1):
                name = f"-{letter}"
                why = _judge(shown, arg, name, opts)
                if why:
                    out.why = why
                    return out
                if name in opts.valued:
                    if k == len(arg) - 1:
                        i += 1
                        if name in opts.text:
                            out.text.add(i)
                    elif name in opts.text:
                        out.text.add(i)
                    break
        i += 1
    return out


def _judge(shown: str, arg: str, name: str, opts: _Options) -> str | None:
    if name in opts.refused:
        return f"'{shown} {arg}' is refused ({opts.why})"
    if name not in opts.flags and name not in opts.valued:
        return (
            f"'{shown} {arg}': {name} is not an option this profile knows for {shown}, so "
            "what it does cannot be judged"
        )
    return None


def check_git_write(sub: str, args: list[str]) -> str | None:
    """Why ``git SUB ARGS`` may not run under the committer profile, or ``None``."""
    if sub == "checkout":
        return _new_branch("checkout", "-b", args)
    if sub == "switch":
        if len(args) == 1 and _REF.match(args[0]):
            return None
        return _new_branch("switch", "--create", args)
    if sub not in _GIT:
        return None  # branch: judged by bashguard (creating, never deleting or renaming)
    parsed = _parse(f"git {sub}", args, _GIT[sub])
    if parsed.why:
        return parsed.why
    if sub == "add":
        whole = [a for a in parsed.positional if a in _WHOLE_TREE]
        if whole:
            return f"'git add {whole[0]}' stages the whole tree; name the files to stage"
        if not parsed.positional:
            return "'git add' without files stages nothing; name the files to stage"
    if sub == "push":
        return _push(parsed.positional)
    return None


def check_gh(argv: list[str]) -> str | None:
    """Why ``gh ...`` may not run, or ``None``: only ``gh pr create|view|list``."""
    if len(argv) < 3 or argv[1] != "pr" or argv[2] not in GH_PR:
        shown = " ".join(argv[:3])
        return (
            f"'{shown}' is not on the Bash allowlist of this profile (allowed: gh pr "
            f"{', '.join(sorted(GH_PR))}; gh api, gh auth and the rest reach the token)"
        )
    return _parse(" ".join(argv[:3]), argv[3:], _GH[argv[2]]).why


def text_values(argv: list[str]) -> set[int]:
    """Indexes of the words of ``argv`` that are free text (a commit message, a pull request
    title or body), which the path check skips."""
    if argv[:2] == ["gh", "pr"] and argv[2:3] and argv[2] in _GH:
        return {i + 3 for i in _parse("gh", argv[3:], _GH[argv[2]]).text}
    if argv[:1] != ["git"]:
        return set()
    i = 1
    while i < len(argv) and argv[i] in ("--no-pager", "-C"):
        i += 2 if argv[i] == "-C" else 1
    if argv[i : i + 1] != ["commit"]:
        return set()
    return {j + i + 1 for j in _parse("git commit", argv[i + 1 :], _GIT["commit"]).text}


def git_scope(rest: list[str], globbed: set[str], guard: PathGuard, cwds: list[str]) -> str | None:
    """A git write runs inside the project; ``git add DIR`` / ``git commit DIR`` take every
    file git does not ignore below DIR: walked as Grep's path is (``PathGuard.check_grep``).
    ``rest`` is the sub-command and its arguments; ``cwds`` every folder it may run in."""
    if not rest or rest[0] not in GIT_WRITES:
        return None
    sub = rest[0]
    root = guard.root.rstrip("/")
    for cwd in dict.fromkeys(cwds):
        real = os.path.realpath(cwd)
        if real != root and not real.startswith(root + "/"):
            return Undecided(  # not a credential: the shell's refusal, not the secrets one
                f"'git {sub}' in {cwd}, outside the project {root}: git writes run inside it"
            )
    if sub not in ("add", "commit"):
        return None
    saved = guard.cwd
    try:
        for arg in _parse(f"git {sub}", rest[1:], _GIT[sub]).positional:
            if arg in globbed:
                continue
            for cwd in dict.fromkeys(cwds):
                guard.cwd = cwd
                found = guard.check_grep(arg, None, what=f"'git {sub} {arg}'")
                if found:
                    return found
    finally:
        guard.cwd = saved
    return None


def _push(positional: list[str]) -> str | None:
    if not positional:
        return None  # the branch's upstream, as configured
    remote, *refspecs = positional
    if not _REMOTE.match(remote):
        return (
            f"'git push {remote}' names no remote; push to a configured remote by its name "
            "(git push -u origin BRANCH), never to a URL or path"
        )
    for spec in refspecs:
        src, _, dst = spec.partition(":")
        if spec.startswith("+"):
            return f"'git push {remote} {spec}' forces the push ('+'); force is refused"
        if not src or not _REF.match(src) or (dst and not _REF.match(dst)):
            return (
                f"'git push {remote} {spec}' is not a plain branch (deleting, forcing or "
                "pattern refspecs are refused)"
            )
    return None


def _new_branch(sub: str, flag: str, args: list[str]) -> str | None:
    if len(args) in (2, 3) and args[0] == flag and all(_REF.match(a) for a in args[1:]):
        return None
    return (
        f"'git {sub} {' '.join(args)}' is refused: only 'git {sub} {flag} BRANCH [START]' "
        "or 'git switch BRANCH' (other forms can discard changes in the work tree)"
    )
