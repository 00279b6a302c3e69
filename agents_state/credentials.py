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
import re
from functools import cache

from agents_state.globs import glob_regex, has_glob

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


@cache
def _markers() -> frozenset[str] | None:
    """The first folder of every path entry: a path holding none of them needs no path regex
    (``None`` if an entry starts with a glob, which no marker can stand for)."""
    firsts = {
        p.split("/", 1)[0].lower() for p, _ in CATALOGUE if "/" in p and not p.startswith("~/")
    }
    return None if any(has_glob(f) for f in firsts) else frozenset(firsts)


@cache
def _compiled() -> tuple[re.Pattern[str], re.Pattern[str], list[tuple[str, re.Pattern[str]]]]:
    names: list[str] = []
    paths: list[str] = []
    homes: list[tuple[str, re.Pattern[str]]] = []
    for pattern, _ in CATALOGUE:
        if pattern.startswith("~/"):
            homes.append((pattern, re.compile(_path_regex(pattern[2:]), re.I | re.S)))
        elif "/" in pattern:
            paths.append(f"(?:^|/){_path_regex(pattern)}")
        else:
            names.append(glob_regex(pattern))
    name_re = re.compile("|".join(f"(?:{n})" for n in names), re.I | re.S)
    path_re = re.compile("(?:" + "|".join(f"(?:{p})" for p in paths) + ")$", re.I | re.S)
    return name_re, path_re, homes


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
    name_re, path_re, homes = _compiled()
    lower = norm.lower()
    # the most specific entry names the file: home-anchored, then paths, then names
    home = (home if home is not None else os.path.expanduser("~")).replace("\\", "/").rstrip("/")
    if home and lower.startswith(home.lower() + "/"):
        rest = norm[len(home) + 1 :]
        first = rest.split("/", 1)[0].lower()
        for pattern, regex in homes:
            if pattern[2:].split("/", 1)[0].lower() == first and regex.fullmatch(rest):
                return f"{pattern}, {_entry_for(pattern)}"
    markers = _markers()
    if (markers is None or not markers.isdisjoint(lower.split("/"))) and path_re.search(norm):
        pattern = next(
            p
            for p, _ in CATALOGUE
            if "/" in p
            and not p.startswith("~/")
            and re.search(f"(?:^|/){_path_regex(p)}$", norm, re.I | re.S)
        )
        return f"{pattern}, {_entry_for(pattern)}"
    if name_re.fullmatch(base):
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
