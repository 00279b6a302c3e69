"""The credential files that profiles with ``protectSecrets`` keep an agent away from, as data.

One list, three kinds of entry (matched case-insensitively against the resolved absolute path,
``/`` as the separator):

- a name without ``/`` (``.env``, ``*.pem``): a file of that name anywhere;
- a path with ``/`` (``.docker/config.json``): a file whose path ends with those components,
  anywhere; ``dir/**`` is everything under a directory of that name, and the directory itself;
- ``~/...``: the same, but only under the home directory.

Templates and public halves are never credentials: a name ending in one of ``NOT_SECRET``
(``.env.example``, ``id_rsa.pub``).  The globs use ``*``, ``?``, ``[...]`` and ``{a,b}``
(``agents_state.globs``).  docs/reliability.md lists the catalogue for people.

Pure: no file-system access here (``hooks/pathguard`` resolves links and hard links).
"""

from __future__ import annotations

import os

from agents_state.globs import glob_regex, has_glob

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

__all__ = ["CATALOGUE", "NOT_SECRET", "credential_entry", "home_entries"]

# (pattern, what it holds) -- keep each family together; docs/reliability.md mirrors this table.
CATALOGUE: tuple[tuple[str, str], ...] = (
    # environment files and project secrets
    (".env", "environment file"),
    (".env*", "environment file"),
    ("*.env", "environment file"),
    (".envrc", "direnv environment"),
    ("secret.{json,yaml,yml,toml,env}", "secrets file"),
    ("*secrets.{json,yaml,yml,toml,env}", "secrets file"),
    ("*[-_.]secret.{json,yaml,yml,toml,env}", "secrets file"),
    (".htpasswd", "password file"),
    ("*.kdbx", "KeePass database"),
    # keys and certificates
    ("*.pem", "private key or certificate"),
    ("*.key", "private key"),
    ("*.p12", "key store"),
    ("*.pfx", "key store"),
    ("*.jks", "Java key store"),
    ("*.keystore", "key store"),
    ("*.ppk", "PuTTY private key"),
    ("id_rsa*", "SSH private key"),
    ("id_dsa*", "SSH private key"),
    ("id_ecdsa*", "SSH private key"),
    ("id_ed25519*", "SSH private key"),
    (".ssh/**", "SSH keys and configuration"),
    (".gnupg/**", "GnuPG keys"),
    # cloud providers
    ("credentials", "cloud credentials"),
    ("credentials.{json,toml,yaml,yml}", "credentials"),
    ("*[-_.]credentials.{json,toml,yaml,yml}", "credentials"),
    ("service[-_]account*.json", "cloud service account key"),
    ("serviceaccount*.json", "cloud service account key"),
    (".aws/**", "AWS credentials"),
    (".azure/**", "Azure credentials"),
    (".config/gcloud/**", "Google Cloud credentials"),
    (".oci/**", "Oracle Cloud credentials"),
    (".kube/config", "Kubernetes credentials"),
    (".config/doctl/config.yaml", "DigitalOcean token"),
    (".config/hcloud/cli.toml", "Hetzner Cloud token"),
    (".fly/config.yml", "Fly.io token"),
    (".databrickscfg", "Databricks token"),
    (".s3cfg", "S3 credentials"),
    (".boto", "cloud credentials"),
    (".config/rclone/rclone.conf", "rclone credentials"),
    # infrastructure
    (".terraformrc", "Terraform token"),
    ("terraform.rc", "Terraform token"),
    (".terraform.d/credentials.tfrc.json", "Terraform token"),
    ("*.tfstate", "Terraform state (holds secrets in plain text)"),
    ("*.tfstate.backup", "Terraform state (holds secrets in plain text)"),
    (".vault-token", "Vault token"),
    # the environment of a running process (tokens are passed there)
    ("proc/*/environ", "process environment"),
    ("proc/*/task/*/environ", "process environment"),
    # a remote URL there can hold a token (https://user:TOKEN@host/...)
    (".git/config", "git configuration (remote URLs can hold tokens)"),
    (".git/modules/*/config", "git configuration (remote URLs can hold tokens)"),
    # registries and package managers
    (".docker/config.json", "Docker registry credentials"),
    (".npmrc", "npm token"),
    ("~/.yarnrc.yml", "Yarn token"),
    (".pypirc", "PyPI token"),
    ("~/.config/pip/pip.conf", "pip index credentials"),
    ("~/.pip/pip.conf", "pip credentials"),
    (".cargo/credentials", "crates.io token"),
    (".cargo/credentials.toml", "crates.io token"),
    (".gem/credentials", "RubyGems token"),
    ("~/.bundle/config", "Bundler credentials"),
    (".composer/auth.json", "Composer credentials"),
    (".config/composer/auth.json", "Composer credentials"),
    (".m2/settings.xml", "Maven credentials"),
    (".m2/settings-security.xml", "Maven master key"),
    (".gradle/gradle.properties", "Gradle credentials"),
    # version control and forges
    (".git-credentials", "git credentials"),
    (".config/git/credentials", "git credentials"),
    (".config/gh/hosts.yml", "GitHub CLI token"),
    (".config/hub", "hub token"),
    (".netrc", "machine passwords"),
    ("_netrc", "machine passwords"),
    # databases and password stores
    (".pgpass", "PostgreSQL passwords"),
    (".my.cnf", "MySQL credentials"),
    (".password-store/**", "pass password store"),
    (".config/op/**", "1Password CLI"),
    # the host's own login (also matched by name above; listed so the sandbox masks it)
    ("~/.claude/.credentials.json", "Claude Code login"),
    (".local/share/keyrings/**", "desktop keyring"),
)

NOT_SECRET = (
    ".example",
    ".sample",
    ".template",
    ".dist",
    ".default",
    ".defaults",
    ".pub",
    ".schema",
)


# What the functions below work out once per process, by name: ``functools.cache`` would load
# functools (and collections) on the hook's path, and ``re`` is imported only to compile.
_ONCE: dict[str, Any] = {}


def _markers() -> frozenset[str] | None:
    """The first folder of every path entry: a path holding none of them needs no path regex
    (``None`` if an entry starts with a glob, which no marker can stand for)."""
    if "markers" not in _ONCE:
        firsts = {
            p.split("/", 1)[0].lower() for p, _ in CATALOGUE if "/" in p and not p.startswith("~/")
        }
        _ONCE["markers"] = None if any(has_glob(f) for f in firsts) else frozenset(firsts)
    found: frozenset[str] | None = _ONCE["markers"]
    return found


def _literal_run(pattern: str) -> str:
    """The longest run of plain characters outside ``[...]`` and ``{...}``: every name the
    glob matches contains it (lower-cased: the catalogue matches case-insensitively)."""
    runs, run, depth = [], "", 0
    for c in pattern:
        if c in "[{":
            depth += 1
        if depth or c in "*?\\":
            runs.append(run)
            run = ""
        else:
            run += c
        if c in "]}":
            depth -= 1
    return max([*runs, run], key=len).lower()


def _name_fragments() -> tuple[str, ...]:
    """A part of each name entry that a matching file name must contain: most names (``a.ts``)
    hold none, and then no regex is compiled at all (a compile of the whole catalogue is about
    3 ms of every hook)."""
    if "fragments" not in _ONCE:
        _ONCE["fragments"] = tuple({_literal_run(p) for p, _ in CATALOGUE if "/" not in p})
    found: tuple[str, ...] = _ONCE["fragments"]
    return found


def _compiled(key: str, regex: Callable[[], str]) -> re.Pattern[str]:
    """The expression ``regex()`` writes, compiled case-insensitively (``.`` matching newlines
    too), once per ``key``."""
    if key not in _ONCE:
        import re

        _ONCE[key] = re.compile(regex(), re.I | re.S)
    found: re.Pattern[str] = _ONCE[key]
    return found


def _name_re() -> re.Pattern[str]:
    def regex() -> str:
        return "|".join(f"(?:{glob_regex(p)})" for p, _ in CATALOGUE if "/" not in p)

    return _compiled("names", regex)


def _path_re() -> re.Pattern[str]:
    def regex() -> str:
        paths = [
            f"(?:^|/){_path_regex(p)}" for p, _ in CATALOGUE if "/" in p and not p.startswith("~/")
        ]
        return "(?:" + "|".join(f"(?:{p})" for p in paths) + ")$"

    return _compiled("paths", regex)


def _home_re(pattern: str) -> re.Pattern[str]:
    return _compiled(pattern, lambda: _path_regex(pattern[2:]))


def _path_regex(pattern: str) -> str:
    if pattern.endswith("/**"):  # the directory and everything under it
        return f"{glob_regex(pattern[:-3])}(?:/.*)?"
    return glob_regex(pattern)


def _entry_for(pattern: str) -> str:
    return next(what for p, what in CATALOGUE if p == pattern)


def credential_entry(path: str, home: str | None = None) -> str | None:
    """The catalogue entry (``pattern, what``) an absolute ``path`` falls under, or ``None``."""
    norm = path.replace("\\", "/").rstrip("/")
    base = norm.rsplit("/", 1)[-1]
    if not base or base.lower().endswith(NOT_SECRET):
        return None
    lower = norm.lower()
    # the most specific entry names the file: home-anchored, then paths, then names
    home = (home if home is not None else os.path.expanduser("~")).replace("\\", "/").rstrip("/")
    if home and lower.startswith(home.lower() + "/"):
        rest = norm[len(home) + 1 :]
        first = rest.split("/", 1)[0].lower()
        for pattern, what in CATALOGUE:
            if (
                pattern.startswith("~/")
                and pattern[2:].split("/", 1)[0].lower() == first
                and _home_re(pattern).fullmatch(rest)
            ):
                return f"{pattern}, {what}"
    markers = _markers()
    if (markers is None or not markers.isdisjoint(lower.split("/"))) and _path_re().search(norm):
        import re  # which entry it was: only for a credential file

        pattern = next(
            p
            for p, _ in CATALOGUE
            if "/" in p
            and not p.startswith("~/")
            and re.search(f"(?:^|/){_path_regex(p)}$", norm, re.I | re.S)
        )
        return f"{pattern}, {_entry_for(pattern)}"
    lower_base = base.lower()
    if any(f in lower_base for f in _name_fragments()) and _name_re().fullmatch(base):
        import re

        pattern = next(
            p
            for p, _ in CATALOGUE
            if "/" not in p and re.fullmatch(glob_regex(p), base, re.I | re.S)
        )
        return f"{pattern}, {_entry_for(pattern)}"
    return None


def home_entries() -> list[str]:
    """Catalogue paths to look for in the home directory (relative to it; ``**`` entries as
    their directory), for the hard-link check."""
    out: list[str] = []
    for pattern, _ in CATALOGUE:
        rel = pattern[2:] if pattern.startswith("~/") else pattern
        rel = rel[:-3] if rel.endswith("/**") else rel
        if not any(c in rel for c in "*?[{"):
            out.append(rel)
    return out
