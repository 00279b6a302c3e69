"""Issue 16, profile bypasses: what a Grep, Glob or Read of a reader / researcher will touch,
decided on the file system -- patterns that match ``.env`` without spelling it, case, symbolic
and hard links, the broader credential catalogue, and MCP tools granted one by one."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agents_state.credentials import CATALOGUE, credential_entry
from agents_state.hooks.pathguard import PathGuard
from protocol.hookcase import CRED, ask, make_project


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    return project


def cred(what: str, profile: str = "researcher") -> str:
    return CRED.format(profile=profile, what=what)


ENV = ".env: a credential file (.env, environment file)"


@pytest.mark.parametrize(
    "glob",
    [
        ".[e]nv",
        "*nv",
        "**/.e*",
        "{.env,x}",
        ".E?V",
        "*.{env,x}",
        ".env",
        "src/*.ts .[e]nv",
        "*.md,.en[v]",
        "/.env",
    ],
)
def test_issue_16_grep_glob_that_matches_env_without_spelling_it(root: Path, glob: str) -> None:
    assert ask(root, "Grep", {"pattern": "KEY", "glob": glob}) == cred(
        f"Grep over '.' with glob {glob!r} would reach {ENV}"
    )


def test_issue_16_grep_reaches_below_the_folder(root: Path) -> None:
    """(A Glob of the same names is allowed since issue 23: it lists names, reads nothing.)"""
    sub = "config/.env: a credential file (.env, environment file)"
    assert ask(root, "Grep", {"pattern": "K", "path": "config", "glob": ".e*"}) == cred(
        f"Grep over 'config' with glob '.e*' would reach {sub}"
    )
    assert ask(root, "Grep", {"pattern": "K", "glob": "conf*/.[e]*"}) == cred(
        f"Grep over '.' with glob 'conf*/.[e]*' would reach {sub}"
    )


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Grep", {"pattern": "KEY", "glob": "*.ts"}),
        ("Grep", {"pattern": "\\.env", "path": "src"}),
        ("Grep", {"pattern": "KEY", "glob": ".env.example"}),
        ("Glob", {"pattern": "**/*.ts"}),
        ("Glob", {"pattern": "*.md"}),
        ("Read", {"file_path": ".env.example"}),
        ("Read", {"file_path": "src/auth.ts"}),
        ("Grep", {"pattern": "x", "path": "README.md"}),
    ],
)
def test_issue_16_searches_that_reach_no_credential_are_allowed(
    root: Path, tool: str, tool_input: dict[str, str]
) -> None:
    assert ask(root, tool, tool_input) is None


def test_issue_16_grep_over_a_folder_that_holds_env(root: Path) -> None:
    assert ask(root, "Grep", {"pattern": "KEY"}) == cred(f"Grep over '.' would reach {ENV}")
    assert ask(root, "Grep", {"pattern": "KEY", "path": "config"}) == cred(
        "Grep over 'config' would reach config/.env: a credential file (.env, environment file)"
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_issue_16_grep_skips_what_git_ignores_unless_a_glob_names_it(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text(".env\nconfig/\n")
    assert ask(root, "Grep", {"pattern": "KEY"}) is None  # ripgrep skips ignored files
    assert ask(root, "Grep", {"pattern": "KEY", "glob": ".[e]nv"}) == cred(  # a glob overrides
        f"Grep over '.' with glob '.[e]nv' would reach {ENV}"
    )
    assert ask(root, "Glob", {"pattern": "**/.env"}) is None  # names only (issue 23)


@pytest.mark.parametrize(
    ("name", "entry"),
    [
        (".ENV", ".env, environment file"),
        (".Env.Local", ".env*, environment file"),
        ("CONFIG/.ENV", ".env, environment file"),
        ("deploy/Server.PEM", "*.pem, private key or certificate"),
        ("keys/ID_RSA", "id_rsa*, SSH private key"),
    ],
)
def test_issue_16_names_compare_case_insensitively(root: Path, name: str, entry: str) -> None:
    assert ask(root, "Read", {"file_path": name}) == cred(f"{name}: a credential file ({entry})")


def test_issue_16_symlink_to_env_under_another_name(root: Path) -> None:
    (root / "src" / "notes.txt").symlink_to("../.env")
    what = f"src/notes.txt: a link to the credential file {root}/.env (.env, environment file)"
    assert ask(root, "Read", {"file_path": "src/notes.txt"}) == cred(what)
    assert ask(root, "Read", {"file_path": "notes.txt"}, cwd=root / "src") == cred(
        what.replace("src/notes.txt", "notes.txt", 1)
    )
    assert ask(root, "Grep", {"pattern": "KEY", "path": "src"}) == cred(
        f"Grep over 'src' would reach {what}"
    )
    assert ask(root, "Grep", {"pattern": "KEY", "glob": "*.txt"}) == cred(
        f"Grep over '.' with glob '*.txt' would reach {what}"
    )


def test_issue_16_symlinked_folder_into_home_credentials(root: Path) -> None:
    home = Path(os.environ["HOME"])
    (root / "src" / "dock").symlink_to(home / ".docker")
    what = (
        f"src/dock/config.json: a link to the credential file {home}/.docker/config.json "
        "(.docker/config.json, Docker registry credentials)"
    )
    assert ask(root, "Read", {"file_path": "src/dock/config.json"}) == cred(what)
    assert ask(root, "Grep", {"pattern": "x", "path": "src", "glob": "*.json"}) == cred(
        f"Grep over 'src' with glob '*.json' would reach {what}"
    )


def test_issue_16_hard_link_to_env_under_another_name(root: Path) -> None:
    os.link(root / ".env", root / "src" / "copy.txt")
    what = f"src/copy.txt: a hard link to the credential file {root}/.env"
    assert ask(root, "Read", {"file_path": "src/copy.txt"}) == cred(what)
    assert ask(root, "Grep", {"pattern": "KEY", "path": "src"}) == cred(
        f"Grep over 'src' would reach {what}"
    )
    assert ask(root, "Read", {"file_path": "src/auth.ts"}) is None


def test_issue_16_hard_link_to_a_home_key(root: Path) -> None:
    home = Path(os.environ["HOME"])
    os.link(home / ".ssh" / "id_ed25519", root / "src" / "fixture.txt")
    assert ask(root, "Read", {"file_path": "src/fixture.txt"}) == cred(
        f"src/fixture.txt: a hard link to the credential file {home}/.ssh/id_ed25519"
    )


def test_issue_16_hard_link_check_that_cannot_finish_denies(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.link(root / "src" / "auth.ts", root / "src" / "auth2.ts")  # two names, no credential
    guard = PathGuard(str(root), str(root), cap=3)
    assert guard.check_path("src/auth.ts") == (
        "cannot tell whether src/auth.ts is a hard link to a credential file (more than 3 files "
        "in the project to compare)"
    )
    assert PathGuard(str(root), str(root)).check_path("src/auth.ts") is None
    monkeypatch.setattr(PathGuard.__init__, "__defaults__", (None, 3))
    assert ask(root, "Grep", {"pattern": "x", "path": "src", "glob": "auth.*"}) == (
        "agents-state: Grep over 'src' with glob 'auth.*': cannot tell whether src/auth.ts is a "
        "hard link to a credential file (more than 3 files in the project to compare); denied."
    )


def test_issue_16_walk_cap_denies(root: Path) -> None:
    for i in range(20):
        (root / "src" / f"f{i}.ts").write_text("")
    guard = PathGuard(str(root), str(root), cap=10)
    assert guard.check_grep("src", None) == (
        "Grep over 'src' reaches more than 10 files and folders, too many to check for "
        "credential files; give a narrower path or pattern"
    )
    assert guard.check_grep(None, "**/*.ts") == (
        "Grep over '.' with glob '**/*.ts' reaches more than 10 files and folders, too many to "
        "check for credential files; give a narrower path or pattern"
    )


HOME_CASES = [
    (".docker/config.json", ".docker/config.json, Docker registry credentials"),
    (".kube/config", ".kube/config, Kubernetes credentials"),
    (".aws/credentials", ".aws/**, AWS credentials"),
    (".aws/sso/cache/abc.json", ".aws/**, AWS credentials"),
    (
        ".config/gcloud/application_default_credentials.json",
        ".config/gcloud/**, Google Cloud credentials",
    ),
    (".config/gcloud/access_tokens.db", ".config/gcloud/**, Google Cloud credentials"),
    (".azure/msal_token_cache.json", ".azure/**, Azure credentials"),
    (".npmrc", ".npmrc, npm token"),
    (".pypirc", ".pypirc, PyPI token"),
    (".netrc", ".netrc, machine passwords"),
    (".git-credentials", ".git-credentials, git credentials"),
    (".config/gh/hosts.yml", ".config/gh/hosts.yml, GitHub CLI token"),
    (".terraform.d/credentials.tfrc.json", ".terraform.d/credentials.tfrc.json, Terraform token"),
    (".cargo/credentials.toml", ".cargo/credentials.toml, crates.io token"),
    (".ssh/id_rsa", ".ssh/**, SSH keys and configuration"),
    ("keys/id_rsa", "id_rsa*, SSH private key"),
    (".ssh/config", ".ssh/**, SSH keys and configuration"),
    (".yarnrc.yml", "~/.yarnrc.yml, Yarn token"),
    (".m2/settings.xml", ".m2/settings.xml, Maven credentials"),
    ("/proc/self/environ", "proc/*/environ, process environment"),
    ("keys/.env~", ".env*, environment file"),
]


@pytest.mark.parametrize(("rel", "entry"), HOME_CASES)
def test_issue_16_catalogue_covers_cloud_registry_ssh_and_package_tokens(
    root: Path, rel: str, entry: str
) -> None:
    path = rel if rel.startswith("/") else f"{os.environ['HOME']}/{rel}"
    assert ask(root, "Read", {"file_path": path}) == cred(f"{path}: a credential file ({entry})")


@pytest.mark.parametrize(
    "path",
    [
        "/p/.env.example",
        "/p/.ssh/id_rsa.pub",
        "/p/src/config.json",
        "/p/.yarnrc.yml",
        "/p/src/credentials.ts",
        "/p/keyboard.ts",
        "/p/docs/secrets.md",
        "/p/environment.ts",
    ],
)
def test_issue_16_catalogue_leaves_ordinary_files_alone(path: str) -> None:
    assert credential_entry(path, "/home/u") is None


def test_issue_16_catalogue_is_data_and_each_entry_matches_itself() -> None:
    for pattern, _ in CATALOGUE:
        sample = pattern.replace("~/", "/home/u/").replace("/**", "/x").replace("**/", "")
        sample = re.sub(r"\[[^]]*\]", "-", sample.replace("*", "a").replace("?", "a"))
        sample = sample.split("{")[0] + (
            sample.split("{")[1].split(",")[0] if "{" in sample else ""
        )
        full = sample if sample.startswith("/") else f"/p/{sample}"
        assert credential_entry(full, "/home/u"), pattern


MCP = [
    ("subagents:reviewer", "mcp__cclsp__rename_symbol", "deny"),
    ("subagents:reviewer", "mcp__cclsp__rename_symbol_strict", "deny"),
    ("subagents:reviewer", "mcp__cclsp__restart_server", "deny"),
    ("subagents:reviewer", "mcp__cclsp__find_references", "allow"),
    ("subagents:reviewer", "mcp__cclsp__get_diagnostics", "allow"),
    ("subagents:explore", "mcp__cclsp__rename_symbol", "deny"),
    ("subagents:explore", "mcp__context7__get-library-docs", "allow"),
    ("subagents:explore", "mcp__context7__delete_everything", "deny"),
    ("subagents:quality-checker", "mcp__cclsp__rename_symbol", "deny"),
    ("subagents:worker", "mcp__cclsp__rename_symbol", "allow"),
    ("subagents:worker", "mcp__github__create_issue", "deny"),
]


@pytest.mark.parametrize(("agent", "tool", "expected"), MCP)
def test_issue_16_mcp_tools_are_granted_one_by_one(
    root: Path, agent: str, tool: str, expected: str
) -> None:
    reason = ask(root, tool, {}, agent=agent)
    assert ("allow" if reason is None else "deny") == expected, reason


def test_issue_16_rename_symbol_denied_to_readers_with_reason(root: Path) -> None:
    assert ask(root, "mcp__cclsp__rename_symbol", {}, agent="subagents:reviewer") == (
        "agents-state: agent 'reviewer' runs with the reader profile (Read, Grep, Glob, "
        "mcp__cclsp__{find_definition,find_references,find_workspace_symbols,"
        "find_implementation,get_hover,get_diagnostics,prepare_call_hierarchy,"
        "get_incoming_calls,get_outgoing_calls}); mcp__cclsp__rename_symbol is not in it. Do "
        "this step with those tools, or finish with decision STOP or CLARIFY in your handoff "
        "and say what you need."
    )


def test_issue_16_mcp_file_arguments_are_checked_too(root: Path) -> None:
    assert ask(
        root,
        "mcp__cclsp__find_definition",
        {"file_path": ".env", "symbol_name": "x"},
        agent="subagents:reviewer",
    ) == cred(ENV, "reader")


def test_issue_16_file_urls_are_paths(root: Path) -> None:
    assert ask(root, "WebFetch", {"url": f"FILE://{root}/%2Eenv", "prompt": "p"}) == cred(
        f"{root}/.env: a credential file (.env, environment file)"
    )
    assert ask(root, "WebFetch", {"url": "https://example.com/.env", "prompt": "p"}) is None


def test_issue_16_the_docs_list_the_whole_catalogue() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "reliability.md").read_text()
    missing = [p for p, what in CATALOGUE if f"| `{p}` | {what} |" not in docs]
    assert missing == []


def test_issue_16_dot_dot_after_a_link_goes_where_the_kernel_goes(root: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / ".docker" / "sub").mkdir()
    (root / "src" / "dk").symlink_to(home / ".docker" / "sub")
    what = (
        f"src/dk/../config.json: a link to the credential file {home}/.docker/config.json "
        "(.docker/config.json, Docker registry credentials)"
    )
    assert ask(root, "Read", {"file_path": "src/dk/../config.json"}) == cred(what)
    assert ask(
        root, "Bash", {"command": "cat src/dk/../conf*"}, agent="subagents:quality-checker"
    ) == cred(
        f"the pattern 'src/dk/../conf*' would reach {home}/.docker/config.json: a credential "
        "file (.docker/config.json, Docker registry credentials)",
        "validator",
    )


def test_issue_16_walk_time_budget_denies(root: Path) -> None:
    for i in range(1500):
        (root / "src" / f"g{i}.ts").write_text("")
    guard = PathGuard(str(root), str(root))
    guard.deadline = 0.0  # already spent
    assert guard.check_grep("src", "*.ts") == (
        "Grep over 'src' with glob '*.ts' could not be checked for credential files in 5 "
        "seconds (1,000 files and folders seen); give a narrower path or pattern"
    )


def test_issue_16_an_undecided_walk_is_not_called_a_credential(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agents_state.hooks.pathguard.WALK_CAP", 3)
    monkeypatch.setattr(PathGuard.__init__, "__defaults__", (None, 3))
    assert ask(root, "Grep", {"pattern": "x", "glob": "**/*.ts"}) == (
        "agents-state: Grep over '.' with glob '**/*.ts' reaches more than 3 files and folders, "
        "too many to check for credential files; give a narrower path or pattern; denied."
    )


def test_issue_16_a_glob_that_cannot_be_read_denies(root: Path) -> None:
    assert ask(root, "Grep", {"pattern": "x", "glob": "[z-a].env"}) == (
        "agents-state: the pattern '[z-a].env' is not a glob the guard can read (bad character "
        "range z-a at position 9); denied."
    )
