"""graph: tasks and waves (and the stage / phase pipeline) as a Mermaid diagram."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agents_state.cli.options import app_from, emit_json, json_option

if TYPE_CHECKING:
    from agents_state.app import App

__all__ = ["graph"]


@click.command()
@click.option("--pipeline", is_flag=True, help="Add the stages and phases with their status.")
@click.option("--wave", type=click.IntRange(1), metavar="N", help="Only wave N (1-based).")
@click.option(
    "--write",
    is_flag=True,
    help="Write .agents/phases/2.1-graph.md (a Markdown file "
    "with the diagram, rendered by Git hosts) instead of printing the diagram.",
)
@json_option
@click.pass_context
def graph(ctx: click.Context, pipeline: bool, wave: int | None, write: bool, as_json: bool) -> int:
    """Print the tasks of phase 2.1 as a Mermaid flowchart: one subgraph per wave, an edge per
    dependency, status as class styles.

    \b
    Example:
      agents-state graph --pipeline
      agents-state graph --write     # then open .agents/phases/2.1-graph.md
    """
    from agents_state.views.graph import GRAPH_ARTIFACT, mermaid

    app = app_from(ctx)
    if write:
        path, revision = _write(app, pipeline, wave)
        if as_json:
            emit_json({"written": path, "revision": revision})
        else:
            click.echo(f"wrote {path} (revision {revision})")
        return 0
    state = app.require()
    text = mermaid(state, pipeline, wave)
    if as_json:
        emit_json(
            {
                "format": "mermaid",
                "diagram": text,
                "revision": state.revision,
                "artifact": f".agents/phases/{GRAPH_ARTIFACT}",
            }
        )
    else:
        click.echo(text, nl=False)
    return 0


def _write(app: App, pipeline: bool, wave: int | None) -> tuple[str, int]:
    """Render from the state read under the lock, so the file matches one revision exactly.

    The write goes through the store's lock because the store removes stray temp files of
    writers that do not hold it.  The state itself is not changed.
    """
    from agents_state.engine.phases import Outcome
    from agents_state.errors import NotFoundError
    from agents_state.models import State
    from agents_state.views.graph import GRAPH_ARTIFACT, graph_markdown

    store = app.store
    if (
        (app.state() is None)
        if app.store_url is not None
        else not app.file_store.state_path.is_file()
    ):
        raise NotFoundError(
            'no workflow in this directory; start one with: agents-state dispatch "<task>"'
        )
    written: list[str] = []

    def mutate(state: State | None) -> Outcome:
        if state is None:
            raise NotFoundError(
                'no workflow in this directory; start one with: agents-state dispatch "<task>"'
            )
        data = graph_markdown(state, pipeline, wave).encode()
        written.append(store.write_artifact(GRAPH_ARTIFACT, data))
        return Outcome(state, "graph written", changed=False)

    out = store.commit(mutate)
    return written[0], out.state.revision
