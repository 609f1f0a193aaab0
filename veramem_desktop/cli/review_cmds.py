"""Answering from memory, and the review that only a person may do."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .common import clip, emit_json, json_option, pass_memory, say
from .search_cmds import state_badge
from .suggest import SuggestingGroup

if TYPE_CHECKING:
    from ..memory import Memory


@click.command()
@click.argument("question")
@click.option("--user", "user_id", help="Answer as this user.")
@click.option("--agent", "agent_id", help="Answer as this agent (its grants apply).")
@click.option("--k", "k", type=click.IntRange(1, 100), default=10, show_default=True)
@json_option
@pass_memory
def answer(
    ctx: click.Context,
    mem: Memory,
    question: str,
    user_id: str | None,
    agent_id: str | None,
    k: int,
    as_json: bool,
) -> None:
    """Answer from stored memories only, citing them, or abstain."""
    result = mem.recall.answer(question, user_id=user_id, agent_id=agent_id, k=k)
    for notice in result.notices:
        say(f"note: {notice}", err=True)
    if as_json:
        emit_json(result.to_dict())
        return
    say(result.text)
    if result.cited:
        say("\nCited:")
        for hit in result.cited:
            say(f"  [{hit.id}] ({hit.kind}/{hit.authority}) {clip(hit.text, 100)}")
            say(f"      {state_badge(hit)}")  # the state search shows for the same item
    elif result.abstained:
        say("(abstained: nothing stored supports an answer)")
    say(f"\ntrace {result.trace_id} · tried {' → '.join(result.ladder)}")


@click.group(cls=SuggestingGroup, invoke_without_command=True)
@click.option("--user", "user_id", help="Only this user's items.")
@click.option(
    "--within",
    default="7d",
    show_default=True,
    metavar="DURATION",
    help="Show memories that expire within this long (30m, 12h, 7d, 2w).",
)
@click.option("--expiring", is_flag=True, help="With --json: list what expires soon instead of the queue.")
@json_option
@pass_memory
def review(
    ctx: click.Context, mem: Memory, user_id: str | None, within: str, expiring: bool, as_json: bool
) -> None:
    """List candidates and conflicts waiting for a person, and memories that expire soon.

    Approval is a human act: it is offered here and in the terminal app, never to agents.
    Pin a memory (`veramem pin ID`) to keep it past its expiry.
    """
    if ctx.invoked_subcommand is not None:
        return
    from veramem_desktop.core.lifecycle.expiry import parse_duration

    span = parse_duration(within)
    mem.curation.expire_if_due()
    queue = mem.review.queue(user_id=user_id)
    soon = mem.curation.expiring(span, user_id=user_id)
    if as_json:
        emit_json(soon if expiring else [r.to_dict() for r in queue])
        return
    if not queue:
        say("Nothing to review.")
    for r in queue:
        say(f"{r.item.id}  [{r.item.kind}/{r.item.authority}]  {clip(r.item.text, 100)}")
        say(f"    {r.reason}")
    if queue:
        say("\nApprove with `veramem review approve ID`, reject with `veramem review reject ID --reason …`.")
    if soon:
        say(f"\nExpiring within {within}:")
        for e in soon:
            kept = "  (pinned: kept)" if e["pinned"] else ""
            say(f"{e['id']}  expires {e['expires_at'][:16]} (in {e['in']})  {clip(e['text'], 100)}{kept}")
        say("Keep one with `veramem pin ID`.")


@review.command("approve")
@click.argument("memory_id")
@json_option
@pass_memory
def approve(ctx: click.Context, mem: Memory, memory_id: str, as_json: bool) -> None:
    """Mark a memory verified (refused for a rejected value)."""
    item = mem.review.approve(memory_id)
    emit_json(item.to_dict()) if as_json else say(f"Approved {item.id}: {item.text}")


@review.command("reject")
@click.argument("memory_id")
@click.option("--reason", default="", help="Why (kept with the item).")
@json_option
@pass_memory
def reject(ctx: click.Context, mem: Memory, memory_id: str, reason: str, as_json: bool) -> None:
    """Reject a memory: hidden everywhere, and its value can never come back."""
    done = mem.review.reject(memory_id, reason)
    if as_json:
        emit_json(done.to_dict())
        return
    say(f"Rejected {done.item.id}: {done.item.text}")
    for other in done.retracted:
        say(f"  retracted with it: {other} (it said the same)")
    if done.withheld:
        say(f"  {len(done.withheld)} message(s) holding the value are withheld from recall")
    if done.reinstated:
        say(f"  the earlier version {done.reinstated} is current again")


@click.command()
@click.option("--user", "user_id", help="Whose memories to share (default from config).")
@click.option("--consent", "consent", multiple=True, help="Mark this memory shareable first (repeatable).")
@click.option("--visibility", type=click.Choice(["public", "team"]), default="public", show_default=True)
@click.option("--team", "team_id", help="The team to share with (with --visibility team).")
@click.option("--tau", type=float, default=0.5, show_default=True, help="Minimum utility to be eligible.")
@json_option
@pass_memory
def share(
    ctx: click.Context,
    mem: Memory,
    user_id: str | None,
    consent: tuple[str, ...],
    visibility: str,
    team_id: str | None,
    tau: float,
    as_json: bool,
) -> None:
    """Share eligible experiences and world facts: abstracted, PII- and canary-gated, unendorsed."""
    for memory_id in consent:
        mem.curation.mark_shareable(memory_id)
    report = mem.curation.share(user_id=user_id, visibility=visibility, team_id=team_id, tau=tau)
    if as_json:
        emit_json(report.to_dict())
        return
    say(
        f"Shared {len(report.shared)}, already in the pool {len(report.merged)}, kept local {len(report.refused)}."
    )
    for s in report.shared:
        say(f"  shared {s['id']} → {s['shared_id']}")
    for r in report.refused:
        say(f"  kept   {r['id']}: {r['reason']}")
