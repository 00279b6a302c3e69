"""The engine's git runs nothing the repository names (issue 32, item 2): no hook, no
fsmonitor, no filter, diff or merge driver, whatever a room wrote into git's config or
attributes.  Each attack is real: the same config makes plain git run the planted program."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from clitools import run_proc, walk_to
from gitrepo import cli_json, edit_line, git, load, make_repo, run_cli, task_of

WHAT = ("fsmonitor", "hook", "clean", "smudge", "process", "textconv", "diffcmd", "merge")


def _plant(root: Path, marks: Path) -> None:
    """A repository config (the common one every worktree reads) whose every program writes a
    marker, and attributes naming its drivers for every file."""
    marks.mkdir()
    for what in WHAT:
        script = marks / f"{what}.sh"
        script.write_text(f"#!/bin/sh\ntouch {marks}/ran-{what}\ncat\n")
        script.chmod(0o755)
    hooks = marks / "hooks"
    hooks.mkdir()
    for name in ("pre-commit", "post-commit", "post-checkout", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marks}/ran-hook\n")
        (hooks / name).chmod(0o755)
    config = root / ".git" / "config"
    config.write_text(
        config.read_text()
        + f"[core]\n\tfsmonitor = {marks}/fsmonitor.sh\n\thooksPath = {hooks}\n"
        + f'[filter "x"]\n\tclean = {marks}/clean.sh\n\tsmudge = {marks}/smudge.sh\n'
        + f'[filter "p"]\n\tprocess = {marks}/process.sh\n'
        + f'[diff "x"]\n\ttextconv = {marks}/textconv.sh\n\tcommand = {marks}/diffcmd.sh\n'
        + f'[merge "x"]\n\tdriver = {marks}/merge.sh %O %A %B\n'
        + f"[diff]\n\texternal = {marks}/diffcmd.sh\n"
    )
    info = root / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("* filter=x diff=x merge=x\ng.txt filter=p\n")


def _ran(marks: Path) -> list[str]:
    return sorted(p.name for p in marks.glob("ran-*"))


def test_the_engines_git_runs_no_program_the_repository_names(root: Path) -> None:
    make_repo(root)
    (root / ".gitattributes").write_text("* filter=x diff=x merge=x\n")
    (root / "g.txt").write_text("g\n")
    git(root, "add", ".gitattributes", "g.txt")
    git(root, "commit", "-qm", "attributes")
    walk_to(root, "2.1")
    marks = root.parent / "marks"
    _plant(root, marks)
    edit_line(root / "f.txt", 0, "uncommitted by the user")  # tasks load: git stash create
    (root / "g.txt").write_text("g changed\n")
    load(root, [{"id": "a"}, {"id": "b"}])
    assert _ran(marks) == [], "tasks load"
    for tid, line in (("a", 3), ("b", 150)):
        out = cli_json(root, "task", "start", tid)
        assert _ran(marks) == [], f"task start {tid}"
        edit_line(Path(out["worktree"]) / "f.txt", line, f"{tid} was here")
        (Path(out["worktree"]) / "g.txt").write_text(f"g by {tid}\n")
    proc = run_proc(root, "task", "done", "a", "--summary", "a")  # the installed CLI
    assert proc.returncode == 0, proc.stderr
    proc = run_proc(root, "task", "done", "b", "--summary", "b")
    assert proc.returncode == 0, proc.stderr
    proc = run_proc(root, "next")  # the wave's agents have stopped: the merge queue runs
    assert proc.returncode == 0, proc.stderr
    assert _ran(marks) == [], "task done and the merge"
    # a file whose attributes name a merge driver a config defines is never merged by it: it
    # conflicts (for an agent to resolve) instead of running the driver
    assert (task_of(root, "a")["merge"], task_of(root, "b")["merge"]) == ("merged", "conflict")
    proc = run_cli(root, "merge", "--resolve", "b")
    assert proc.returncode == 0, proc.stderr
    assert _ran(marks) == [], "merge --resolve"
    # the attack is real: plain git in the same checkout runs the planted programs
    subprocess.run(["git", "-C", str(root), "status"], capture_output=True, check=False)
    subprocess.run(["git", "-C", str(root), "diff"], capture_output=True, check=False)
    assert {"ran-fsmonitor", "ran-clean"} <= set(_ran(marks))


@pytest.mark.skipif(os.geteuid() != 0, reason="giving the repository to another user needs root")
def test_safe_directory_is_reset_to_the_folder_git_works_in(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's global ``safe.directory=*`` does not widen what the engine's git trusts: a
    repository another user owns is refused unless it is the folder the engine works in."""
    from agents_state.gitwork.git import Git, GitError

    make_repo(root)
    (root / "sub").mkdir()
    global_config = root.parent / "global.gitconfig"
    global_config.write_text("[safe]\n\tdirectory = *\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(global_config))
    for dirpath, _dirs, files in os.walk(root):
        for name in (dirpath, *(os.path.join(dirpath, f) for f in files)):
            os.lchown(name, 65534, 65534)
    plain = subprocess.run(
        ["git", "-C", str(root / "sub"), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    assert plain.returncode == 0, plain.stderr  # the user's * lets plain git in
    assert Git(root).rev("HEAD") is not None  # the engine's own folder
    with pytest.raises(GitError, match="dubious ownership"):
        Git(root / "sub").run("rev-parse", "HEAD")


def test_the_engines_git_add_runs_no_filter_of_the_users_config(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 2, the user's layer: a clean filter and a textconv in the user's own config, named
    by a ``.gitattributes`` a room wrote, run nothing when the engine adds and commits."""
    from agents_state.gitwork.git import Git

    make_repo(root)
    ran = root.parent / "ran"
    user = root.parent / "user.gitconfig"
    prog = f"sh -c 'echo $0 >> {ran}; cat' "
    for key, value in (("filter.u.clean", f"{prog}u"), ("diff.u.textconv", f"{prog}t")):
        subprocess.run(["git", "config", "--file", str(user), key, value], check=True)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user))
    (root / ".gitattributes").write_text("*.txt filter=u diff=u\n")
    (root / "n.txt").write_text("n\n")
    engine = Git(root)
    engine.run("add", ".gitattributes", "n.txt")
    engine.run("commit", "-qm", "n")
    engine.run("diff", "HEAD~1", "HEAD")
    assert not ran.exists(), ran.read_text()
    subprocess.run(["git", "-C", str(root), "diff", "HEAD~1", "HEAD"], capture_output=True)
    assert ran.exists()  # the attack is real: plain git runs the user's textconv
