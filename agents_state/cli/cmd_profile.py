"""profile show | check: the tool permission profiles of designs 000 / 001."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from agents_state.cli.options import emit_json, json_option

if TYPE_CHECKING:
    from agents_state.profiles import Profile

__all__ = ["profile"]


def _find(name: str) -> Profile:
    from agents_state.errors import NotFoundError
    from agents_state.profiles import PROFILES, get_profile

    found = get_profile(name)
    if found is None:
        names = ", ".join(p.names for p in PROFILES)
        raise NotFoundError(
            f"unknown profile '{name}'; profiles are {names} (a spec may add tools: reader+Bash)"
        )
    return found


@click.group()
def profile() -> None:
    """Tool permission profiles: which tools each kind of sub-agent may use.

    \b
    Example:
      agents-state profile show researcher
      agents-state profile check reader Write
    """


@profile.command()
@click.argument("name", required=False)
@json_option
def show(name: str | None, as_json: bool) -> int:
    """Show one profile, or all of them with the default agent types that use them.

    \b
    Example:
      agents-state profile show read-only
    """
    from agents_state.profiles import DEFAULT_AGENT_PROFILES, PROFILES

    chosen = [_find(name)] if name else list(PROFILES)
    rows: list[dict[str, Any]] = []
    for p in chosen:
        agents = sorted(
            a
            for a, spec in DEFAULT_AGENT_PROFILES.items()
            if spec.split("+")[0] in (p.name, *p.aliases)
        )
        rows.append(
            {
                "name": p.name,
                "aliases": list(p.aliases),
                "tools": list(p.tools),
                "protectSecrets": p.protect_secrets,
                "bashContained": p.protect_secrets and "Bash" in p.tools,  # issue 23
                "description": p.description,
                "agents": agents,
            }
        )
    if as_json:
        emit_json(rows[0] if name else rows)
        return 0
    for row in rows:
        names = " / ".join([row["name"], *row["aliases"]])
        click.echo(f"{names}: {row['description']}")
        click.echo(f"  tools: {', '.join(row['tools'])}")
        if row["protectSecrets"]:
            click.echo("  no .env or credential files")
        if row["bashContained"]:
            click.echo(
                "  Bash runs in a bubblewrap sandbox: credential files read empty, writes only "
                "in the project, no network (docs/plugin.md)"
            )
        if row["agents"]:
            click.echo(f"  default for: {', '.join(row['agents'])}")
    return 0


@profile.command()
@click.argument("name")
@click.argument("tool")
@click.option("--path", help="The file the tool would read (checks credential files too).")
@json_option
def check(name: str, tool: str, path: str | None, as_json: bool) -> int:
    """Exit 0 if profile NAME allows TOOL, else print why and exit 4.

    \b
    Example:
      agents-state profile check researcher mcp__context7__get-library-docs
    """
    from agents_state.errors import TransitionNotAllowedError
    from agents_state.profiles import check_tool

    p = _find(name)
    tool_input = {"file_path": path} if path else {}
    reason = check_tool(p, name, tool, tool_input)
    if as_json:
        emit_json(
            {
                "profile": p.name,
                "tool": tool,
                "allowed": reason is None,
                **({"reason": reason} if reason else {}),
            }
        )
    if reason is not None:
        if as_json:
            return 4
        raise TransitionNotAllowedError(
            f"profile {p.name}", "missing the tool", f"use {tool}", hint=reason.split("; ", 1)[-1]
        )
    if not as_json:
        click.echo(f"{p.name} allows {tool}")
    return 0
