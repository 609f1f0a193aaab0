"""`veramem doctor` and `veramem demo`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from veramem_desktop.core.errors import ExitCode

from .common import emit_json, json_option, pass_memory

if TYPE_CHECKING:
    from ..memory import Memory

#: checks whose failure means the store's files are damaged or missing (exit 6, like every command)
DAMAGE_CHECKS = ("file", "keyfile", "wal", "pages")


@click.command()
@click.option("--probes", is_flag=True, help="Also run live probes of the invariants on a scratch store.")
@json_option
@pass_memory
def doctor(ctx: click.Context, mem: Memory, probes: bool, as_json: bool) -> None:
    """Check the store, key, keyring, embedder, LLM, sync and versions, with the fix for each problem.

    The store file, key file and WAL are read before the store is opened; an emptied,
    truncated or damaged one is named with what to do (exit 6), and every page of the
    store is checked (PRAGMA cipher_integrity_check).
    """
    from ..doctor import checks, run_probes

    found = checks(mem)
    ran = run_probes(mem) if probes else []
    bad = [c for c in found if not c.ok] + [p for p in ran if not p.passed]
    if as_json:
        emit_json(
            {"checks": [c.to_dict() for c in found], "probes": [p.to_dict() for p in ran], "ok": not bad}
        )
    else:
        for c in found:
            click.echo(f"{'ok ' if c.ok else 'BAD'}  {c.name:9} {c.detail}")
            if c.fix and not c.ok:
                click.echo(f"      fix: {c.fix}")
        for p in ran:
            click.echo(f"{'pass' if p.passed else 'FAIL'} probe: {p.name}\n      {p.proof}")
    if any(c.name in DAMAGE_CHECKS and not c.ok for c in found):
        ctx.exit(int(ExitCode.NOT_A_STORE))
    if bad:
        ctx.exit(int(ExitCode.FAILURE))


@click.command()
@json_option
@pass_memory
def demo(ctx: click.Context, mem: Memory, as_json: bool) -> None:
    """Load a small demonstration set (preferences, facts, a correction, a tool claim, a conflict)."""
    from ..demo import load_demo

    results = load_demo(mem)
    added = sum(len(r.added) for r in results)
    episodes = sum(len(r.episodes) for r in results)
    if as_json:
        emit_json({"episodes": episodes, "memories_added": added})
    else:
        click.echo(f"Loaded the demo: {episodes} messages, {added} memories. Open `veramem` to look around.")
