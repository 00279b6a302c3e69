"""What the Bash guard allows, as data: the commands (``ALLOWLIST``, with their allowed
sub-commands), the options refused even then (``REFUSED_OPTIONS``), the modules ``python -m`` may
run, the environment variables a command may set, and why the usual refused commands are
refused (``WHY_NOT``).  ``bashguard`` judges a command line against these tables;
docs/reliability.md lists them for users.
"""

from __future__ import annotations

__all__ = [
    "ALLOWLIST",
    "ANY",
    "GIT_REF_WRITES",
    "GIT_WRITE_COMMANDS",
    "PYTHON_MODULES",
    "REFUSED_OPTIONS",
    "SAFE_ENV",
    "SCRIPTS",
    "WHY_NOT",
]

ANY = None  # any sub-command
# git's writes for the committer profile (hooks.gitwrite judges them; ``branch`` is judged here)
GIT_WRITE_COMMANDS = frozenset({"add", "commit", "push", "switch", "checkout"})
SCRIPTS = frozenset(
    {
        "test",
        "t",
        "run",
        "run-script",
        "lint",
        "build",
        "typecheck",
        "check",
        "format",
        "ls",
        "list",
        "audit",
        "outdated",
        "why",
    }
)

# command -> allowed first argument (sub-command), or ANY.  Families: tests, linters and type
# checkers, builds, git read commands, looking at files.
ALLOWLIST: dict[str, frozenset[str] | None] = {
    **dict.fromkeys(
        (
            "pytest",
            "py.test",
            "tox",
            "nox",
            "jest",
            "vitest",
            "mocha",
            "ava",
            "phpunit",
            "rspec",
            "ctest",
            "playwright",
            "cypress",
        ),
        ANY,
    ),
    **dict.fromkeys(
        (
            "ruff",
            "mypy",
            "dmypy",
            "pyright",
            "flake8",
            "pylint",
            "black",
            "isort",
            "bandit",
            "pip-audit",
            "eslint",
            "prettier",
            "tsc",
            "vue-tsc",
            "biome",
            "stylelint",
            "golangci-lint",
            "gofmt",
            "staticcheck",
            "shellcheck",
            "rubocop",
            "hadolint",
            "yamllint",
            "markdownlint",
            "semgrep",
            "clippy",
        ),
        ANY,
    ),
    **dict.fromkeys(
        ("make", "just", "mvn", "mvnw", "gradle", "gradlew", "cmake", "ninja", "bazel"), ANY
    ),
    "go": frozenset({"test", "vet", "build", "list", "version", "fmt"}),
    "cargo": frozenset(
        {
            "test",
            "build",
            "check",
            "clippy",
            "fmt",
            "doc",
            "metadata",
            "tree",
            "audit",
            "nextest",
            "bench",
        }
    ),
    "npm": SCRIPTS,
    "pnpm": SCRIPTS,
    "yarn": SCRIPTS,
    "bun": frozenset({"test", "run"}),
    "npx": frozenset(
        {
            "tsc",
            "vue-tsc",
            "eslint",
            "prettier",
            "jest",
            "vitest",
            "mocha",
            "biome",
            "stylelint",
            "playwright",
        }
    ),
    "python": frozenset({"-m"}),
    "python3": frozenset({"-m"}),
    "dotnet": frozenset({"test", "build", "format"}),
    "mix": frozenset({"test", "format", "compile", "credo"}),
    "git": frozenset(
        {
            "status",
            "log",
            "diff",
            "show",
            "branch",
            "rev-parse",
            "ls-files",
            "ls-tree",
            "blame",
            "describe",
            "shortlog",
            "tag",
            "show-ref",
            "merge-base",
            "rev-list",
            "whatchanged",
        }
    ),
    **dict.fromkeys(
        (
            "ls",
            "cat",
            "head",
            "tail",
            "wc",
            "file",
            "stat",
            "tree",
            "du",
            "find",
            "grep",
            "egrep",
            "fgrep",
            "diff",
            "cmp",
            "sort",
            "uniq",
            "cut",
            "tr",
            "nl",
            "echo",
            "printf",
            "pwd",
            "which",
            "true",
            "false",
            "test",
            "[",
            "date",
            "basename",
            "dirname",
            "realpath",
            "readlink",
            "jq",
            "md5sum",
            "sha1sum",
            "sha256sum",
            "column",
            "fold",
            "tac",
            "rev",
            "comm",
            "paste",
            "cd",
            "sleep",
        ),
        ANY,
    ),
}
PYTHON_MODULES = frozenset(
    {
        "pytest",
        "unittest",
        "mypy",
        "ruff",
        "pylint",
        "flake8",
        "black",
        "isort",
        "pyright",
        "compileall",
        "doctest",
        "tox",
        "nox",
    }
)
# options that run other programs, write files or read recursively: refused even when the
# command is allowed (a short-option cluster such as -rn counts its letters)
REFUSED_OPTIONS: dict[str, frozenset[str]] = {
    "find": frozenset(
        {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
    ),
    "grep": frozenset(
        {"-r", "-R", "--recursive", "--dereference-recursive", "-d", "--directories"}
    ),
    "diff": frozenset({"-r", "--recursive"}),
    "git": frozenset(
        {
            "--output",
            "-c",
            "--config-env",
            "--exec-path",
            "--ext-diff",
            "--git-dir",
            "--work-tree",
            "--upload-pack",
        }
    ),
    "sort": frozenset({"-o", "--output", "--compress-program"}),
    "tree": frozenset({"-o"}),
    "make": frozenset(
        {
            "--eval",
            "-E",
            "SHELL",
            ".SHELLFLAGS",
            "MAKEFLAGS",
            "MAKESHELL",
            "-p",
            "--print-data-base",
        }
    ),  # -p prints the environment's variables
    "go": frozenset({"-exec", "-toolexec", "-overlay"}),
    "cargo": frozenset({"--config", "-Z"}),
    "npm": frozenset({"--script-shell", "--node-options"}),
    "tox": frozenset({"-x", "--override"}),
}
REFUSED_OPTIONS["pnpm"] = REFUSED_OPTIONS["yarn"] = REFUSED_OPTIONS["npm"]
# git branch / git tag list; these options (or a name without --list) would change refs
GIT_REF_WRITES = frozenset(
    {
        "-d",
        "-D",
        "--delete",
        "-m",
        "-M",
        "--move",
        "-c",
        "-C",
        "--copy",
        "-f",
        "--force",
        "-s",
        "-u",
        "--set-upstream-to",
        "--unset-upstream",
        "--edit-description",
        "--track",
        "--no-track",
        "-e",
        "--edit",
        "-F",
        "--file",
        "--annotate",
        "--sign",
        "--local-user",
    }
)
REFUSED_OPTIONS["egrep"] = REFUSED_OPTIONS["fgrep"] = REFUSED_OPTIONS["grep"]
SAFE_ENV = frozenset(
    {
        "CI",
        "NODE_ENV",
        "FORCE_COLOR",
        "NO_COLOR",
        "TERM",
        "LANG",
        "LC_ALL",
        "TZ",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONHASHSEED",
        "RUST_BACKTRACE",
        "CARGO_TERM_COLOR",
    }
)
WHY_NOT = {
    "sh": "shells run code the hook cannot see",
    "bash": "shells run code the hook cannot see",
    "zsh": "shells run code the hook cannot see",
    "eval": "eval runs code the hook cannot see",
    "source": "source runs code the hook cannot see",
    ".": "'.' runs code the hook cannot see",
    "xargs": "xargs runs commands built from its input",
    "env": "env prints the environment (credentials live there too) or runs other commands",
    "printenv": "the environment holds credentials",
    "node": "interpreters run inline code",
    "perl": "interpreters run inline code",
    "ruby": "interpreters run inline code",
    "awk": "awk runs inline code",
    "sed": "sed can run commands and write files",
    "curl": "network tools can send data out",
    "wget": "network tools can send data out",
}
