"""Commands that read memory: search, and the grants that decide who sees what."""

from __future__ import annotations

import click

from .common import emit_json, json_option, open_memory


@click.command()
@click.argument("query")
@click.option("--user", "user_id", help="Search as this user (default from config).")
@click.option("--agent", "agent_id", help="Search as this agent (its grants apply).")
@click.option("--k", "k", type=click.IntRange(1, 1000), default=None, help="How many results.")
@click.option("--route", type=click.Choice(["facts", "raw", "summaries", "dual"]), help="Force a granularity.")
@click.option("--include-archived", is_flag=True, help="Include items in cold storage.")
@json_option
@click.pass_context
def search(ctx: click.Context, query: str, user_id: str | None, agent_id: str | None, k: int | None,
           route: str | None, include_archived: bool, as_json: bool) -> None:
    """Hybrid search over memories and raw episodes (no LLM call)."""
    mem = open_memory(ctx)
    result = mem.search(query, user_id=user_id, agent_id=agent_id, k=k, route=route, include_archived=include_archived)
    mem.close()
    if as_json:
        emit_json(result.to_dict())
        return
    click.echo(f"route {result.route}{' · ' + result.temporal if result.temporal else ''} · trace {result.trace_id}")
    if not result.results:
        click.echo("No results.")
    for i, hit in enumerate(result.results, 1):
        text = hit.text.replace("\n", " ")
        click.echo(f"{i:2}. [{hit.kind}/{hit.authority}] {text[:110]}{'…' if len(text) > 110 else ''}")
        click.echo(f"    {hit.id}  score {hit.score:.3f}  {(hit.time or '')[:10]}")
    if result.shared:
        click.echo("\nShared (unendorsed, from others):")
        for hit in result.shared:
            click.echo(f"  - {hit.text[:110]}  ({hit.id})")


@click.command()
@click.argument("kind", type=click.Choice(["user_agent", "agent_resource", "team_member"]))
@click.argument("subject")
@click.argument("object")
@json_option
@click.pass_context
def grant(ctx: click.Context, kind: str, subject: str, object: str, as_json: bool) -> None:
    """Allow access: user_agent USER AGENT, agent_resource AGENT RESOURCE, team_member USER TEAM."""
    mem = open_memory(ctx)
    g = mem.grant(kind, subject, object)
    mem.close()
    if as_json:
        emit_json(g.to_dict())
    else:
        click.echo(f"Granted {kind} {subject} → {object} ({g.id}).")


@click.command()
@click.argument("kind", type=click.Choice(["user_agent", "agent_resource", "team_member"]))
@click.argument("subject")
@click.argument("object")
@json_option
@click.pass_context
def revoke(ctx: click.Context, kind: str, subject: str, object: str, as_json: bool) -> None:
    """End an access grant now; what it exposed is hidden at once (retroactively)."""
    mem = open_memory(ctx)
    n = mem.revoke(kind, subject, object)
    mem.close()
    if as_json:
        emit_json({"revoked": n})
    else:
        click.echo(f"Revoked {n} grant(s): {kind} {subject} → {object}.")
