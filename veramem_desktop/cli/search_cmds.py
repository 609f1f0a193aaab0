"""Commands that read memory: search, and the grants that decide who sees what."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

import click

from veramem_desktop.core.vocabulary import State

from . import done
from .common import clip, emit_json, json_option, pass_memory, say

if TYPE_CHECKING:
    from veramem_desktop.core.curation.detail import MemoryDetail
    from veramem_desktop.core.lifecycle.forget import ForgetPlan
    from veramem_desktop.core.recall.hits import SearchResult

    from ..memory import Memory


def state_badge(hit: object) -> str:
    """What recall knows of a hit, in a few words: its trust and its state."""
    state = getattr(hit, "state", State.CURRENT)
    if state in (State.SUPERSEDED, State.PROBABLY_SUPERSEDED) and getattr(hit, "superseded_by", None):
        state = f"{state.replace('_', ' ')} by {hit.superseded_by}"  # type: ignore[attr-defined]
    elif state == State.RETRACTED and getattr(hit, "retracted_by", None):
        state = f"retracted by {hit.retracted_by}"  # type: ignore[attr-defined]
    elif state == State.IN_CONFLICT and getattr(hit, "conflicts_with", None):
        state = f"in conflict with {', '.join(hit.conflicts_with)}"  # type: ignore[attr-defined]
    elif getattr(hit, "corrects", None):
        state = f"{state}, corrects {hit.corrects!r}"  # type: ignore[attr-defined]
    return f"{getattr(hit, 'trust', '')} · {state}"


@click.command()
@click.argument("query")
@click.option("--user", "user_id", help="Search as this user (default from config).")
@click.option("--agent", "agent_id", help="Search as this agent (its grants apply).")
@click.option("--k", "k", type=click.IntRange(1, 1000), default=None, help="How many results.")
@click.option(
    "--route", type=click.Choice(["facts", "raw", "summaries", "dual"]), help="Force a granularity."
)
@click.option("--include-archived", is_flag=True, help="Include items in cold storage.")
@click.option(
    "--include-rejected", is_flag=True, help="Also show rejected material, labelled (never for an agent)."
)
@json_option
@pass_memory
def search(ctx: click.Context, mem: Memory, query: str, as_json: bool, **options: Any) -> None:
    """Hybrid search over memories and raw episodes (no LLM call).

    Each result says its state: current, superseded (by what), probably superseded (a newer statement of
    the same attribute, by what), retracted, in conflict (with what), or raw (a message nothing was
    derived from); the current version of a subject comes first."""
    # the options are named as the search takes them (user_id, agent_id, k, route, include_archived,
    # include_rejected), so they are passed on as they come and spelled only where they are declared
    result = mem.recall.search(query, **options)
    if as_json:
        emit_json(result.to_dict())
        done(ctx)
        return
    say(f"route {result.route}{' · ' + result.temporal if result.temporal else ''} · trace {result.trace_id}")
    for notice in result.notices:
        click.echo(f"note: {notice}", err=True)
    _print_hits(result)
    if result.shared:
        say("\nShared (unendorsed, from others):")
        for hit in result.shared:
            say(f"  - {clip(hit.text, 110)}  ({hit.id})")
    done(ctx)


def _print_hits(result: SearchResult) -> None:
    """The hits, each with its state; when none is close to the question (the relevance floor), that is
    said first. Each hit's own label is in the JSON: here a hit below the floor among close ones (an
    update worded unlike the question) is not marked, so the line never casts doubt on an answer."""
    if not result.results:
        say("No results.")
        return
    if result.nothing_close:
        say("Nothing close: nothing stored is about this. The nearest, for what they are worth:")
    for i, hit in enumerate(result.results, 1):
        say(f"{i:2}. [{hit.kind}/{hit.authority}] {clip(hit.text, 111)}")
        say(f"    {hit.id}  {state_badge(hit)}  score {hit.score:.3f}  {(hit.time or '')[:10]}")


@click.command()
@click.argument("kind", type=click.Choice(["user_agent", "agent_resource", "team_member"]))
@click.argument("subject")
@click.argument("object")
@json_option
@pass_memory
def grant(ctx: click.Context, mem: Memory, kind: str, subject: str, object: str, as_json: bool) -> None:
    """Allow access: user_agent USER AGENT, agent_resource AGENT RESOURCE, team_member USER TEAM."""
    g = mem.grants.grant(kind, subject, object)
    if as_json:
        emit_json(g.to_dict())
    else:
        say(f"Granted {kind} {subject} → {object} ({g.id}).")


@click.command()
@click.argument("kind", type=click.Choice(["user_agent", "agent_resource", "team_member"]))
@click.argument("subject")
@click.argument("object")
@json_option
@pass_memory
def revoke(ctx: click.Context, mem: Memory, kind: str, subject: str, object: str, as_json: bool) -> None:
    """End an access grant now; what it exposed is hidden at once (retroactively)."""
    n = mem.grants.revoke(kind, subject, object)
    if as_json:
        emit_json({"revoked": n})
    else:
        say(f"Revoked {n} grant(s): {kind} {subject} → {object}.")


@click.command()
@click.argument("memory_id")
@click.option("--as-of", "as_of", help="Show the version valid at this time (ISO 8601 or a plain date).")
@click.option("--include-rejected", is_flag=True, help="Also show rejected versions and evidence.")
@json_option
@pass_memory
def history(
    ctx: click.Context, mem: Memory, memory_id: str, as_of: str | None, include_rejected: bool, as_json: bool
) -> None:
    """A memory's version chain with validity times, its evidence and its ledger entries."""
    if as_of:
        versions = mem.reading.history(memory_id, as_of=as_of, include_rejected=include_rejected)
        if as_json:
            emit_json([v.to_dict() for v in versions])
        elif versions:
            v = versions[0]
            say(f"As of {as_of}: {clip(v.text, 400)}  ({v.id}, version {v.version}, {v.status})")
        else:
            say(f"No version of {memory_id} was valid at {as_of}.")
        return
    detail = mem.reading.detail(memory_id, include_rejected=include_rejected)
    if as_json:
        emit_json(detail.to_dict())
        return
    _print_detail(detail)


def _print_detail(detail: MemoryDetail) -> None:
    """The memory, its versions, evidence, conflicts, links and ledger entries as text."""
    item = detail.item
    say(item.text)
    say(
        f"  {item.kind} · {item.authority} · trust {item.trust} · {item.status} · "
        f"state {detail.state.replace('_', ' ')} · confidence "
        f"{item.confidence:.2f} · utility {item.utility:.2f}"
    )
    if item.pinned or item.metadata.get("expires_at"):
        say(
            "  "
            + " · ".join(
                (["pinned"] if item.pinned else [])
                + ([f"expires {item.metadata['expires_at'][:16]}"] if item.metadata.get("expires_at") else [])
            )
        )
    say("\nVersions:")
    for v in detail.versions:
        mark = "→" if v.id == item.id else " "
        say(
            f" {mark} v{v.version} {v.id}  {v.status:10}  valid {v.valid_from[:19]} – "
            f"{(v.valid_to or 'now')[:19]}  {clip(v.text, 200)}"
        )
    say("\nEvidence:")
    for ev in detail.evidence:
        who = clip(ev.episode.source_name or ev.episode.role, 40)
        say(
            f"  {ev.episode.id} ({who}, {ev.episode.event_time[:19]}, match {ev.score:.2f}): “{clip(ev.quote, 400)}”"
        )
    _print_relations(detail)


def _print_relations(detail: MemoryDetail) -> None:
    """The memory's conflicts, links and ledger entries as text."""
    item = detail.item
    if detail.conflicts:
        settled = "" if detail.state == State.IN_CONFLICT else " (settled)"
        say("\nConflicts with: " + ", ".join(detail.conflicts) + settled)
    if detail.links:
        say("\nLinks:")
        for link in detail.links:
            other = link["dst"] if link["src"] == item.id else link["src"]
            say(f"  {link['type']:12} {other}")
    say("\nLedger:")
    for e in detail.ledger:
        by = f"  by {e.actor_text}" if e.actor_text else ""
        say(f"  #{e.seq} {e.ts[:19]} {e.op} {e.target_id}{by}")


@click.command()
@click.argument("target")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation (for scripts).")
@click.option(
    "--everywhere",
    is_flag=True,
    help="Also erase what repeats it in the user's other sessions (default: in its own sessions).",
)
@click.option(
    "--only-this",
    is_flag=True,
    help="Erase only it and what is built from it, not what repeats it elsewhere.",
)
@click.option(
    "--redact",
    is_flag=True,
    help="A memory: remove only the sentences that state it; its messages' other memories stay.",
)
@json_option
@pass_memory
def forget(
    ctx: click.Context,
    mem: Memory,
    target: str,
    yes: bool,
    everywhere: bool,
    only_this: bool,
    redact: bool,
    as_json: bool,
) -> None:
    """Erase a memory (mem_…, every version), an episode (ep_…) or a whole user (user:<id>).

    Shows exactly what will go and asks first. Everything built from it goes too, and so do
    the messages and memories of the same conversation that repeat what it says (an
    assistant's "Noted: …", a tool's copy, a summary), each listed first; --everywhere looks
    in every session of the user, --only-this in none. With --redact, a memory's messages
    lose only the sentences that state it (each is replaced by a new message of the rest,
    the old one tombstoned) and the other memories they hold stay. The ledger keeps only a
    tombstone (id and commitment).
    """
    import sys

    from veramem_desktop.core.errors import ExitCode

    if everywhere and only_this:
        raise click.UsageError("Choose one of --everywhere and --only-this.")
    reach = "everywhere" if everywhere else "none" if only_this else "session"
    plan = mem.reading.forget_preview(target, reach=reach, redact=redact)
    if not as_json or not yes:
        _say_plan(mem, target, plan, sys.stderr if as_json else sys.stdout)
    if not yes:
        if not sys.stdin.isatty():
            say("Not confirmed: run in a terminal to confirm, or pass --yes.", err=True)
            ctx.exit(int(ExitCode.REFUSED))
        if not click.confirm("Erase this for good?", default=False):
            say("Nothing was erased.")
            return
    report = mem.curation.forget(target, reach=reach, redact=redact)
    if as_json:
        emit_json({"plan": plan.to_dict(), "report": report.to_dict()})
    else:
        say(
            f"Erased {report.erased_memories} memory item(s), {report.erased_episodes} episode(s), "
            f"{report.erased_traces} trace(s). Tombstones written; the ledger still verifies."
        )


def _say_plan(mem: Memory, target: str, plan: ForgetPlan, out: TextIO) -> None:
    """What a forget will erase, as the person reads it before confirming."""
    say(f"Forgetting {target} erases:", file=out)
    say(
        f"  {len(plan.memories)} memory item(s) (all versions)"
        + (f", of which {len(plan.derived)} derived from it" if plan.derived else ""),
        file=out,
    )
    say(f"  {len(plan.episodes)} episode(s) and {plan.evidence} evidence link(s)", file=out)
    if plan.traces:
        say(f"  {plan.traces} trace(s) that named it (searches, answers, write decisions)", file=out)
    if plan.grants or plan.rejected_values:
        say(f"  {plan.grants} grant(s), {plan.rejected_values} rejected value(s)", file=out)
    for mid in plan.memories[:10]:
        try:
            say(f"    - {mid}: {clip(mem.reading.get(mid).text, 90)}", file=out)
        except Exception:
            pass
    _say_restatements(plan, out)
    for cut in plan.redactions:
        say(f"  message {cut['episode']} is replaced by what stays of it: {clip(cut['kept'], 80)}", file=out)
    if plan.kind == "memory" and plan.derived and not plan.redactions:
        say(
            "  (--redact removes only the sentences that state it, so its messages' other memories stay)",
            file=out,
        )


def _say_restatements(plan: ForgetPlan, out: TextIO) -> None:
    """The messages and memories a forget erases because they repeat what is forgotten, one a line."""
    where = "in every session" if plan.reach == "everywhere" else "in the same session"
    if plan.restatements:
        say(f"  {len(plan.restatements)} item(s) that repeat it {where}:", file=out)
        for r in plan.restatements:
            say(f"    - {r['kind']} {r['id']} ({r['session_id']}): {clip(r['text'], 80)}", file=out)
    elif plan.reach == "session":
        say("  nothing else in its session repeats it (--everywhere looks in every session)", file=out)
