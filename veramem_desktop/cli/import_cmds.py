"""``veramem import``: chat history, message lists, documents, or a memory export, into the store."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from veramem_desktop.core.errors import ExitCode
from veramem_desktop.core.transfer.chats import FORMATS

from .common import emit_json, json_option, open_memory

if TYPE_CHECKING:
    from veramem_desktop.core.transfer.import_report import ImportReport

#: characters of each message shown by a dry run
PREVIEW = 200


@click.command(name="import")
@click.argument("path", type=click.Path(exists=True, path_type=str))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="What PATH is (default: detected from the file).",
)
@click.option("--since", metavar="DATE", help="Only messages at or after this time (e.g. 2024-01-01).")
@click.option("--dry-run", is_flag=True, help="Print what would be stored; store nothing.")
@click.option("--user", "user_id", help="User the history belongs to (default from config).")
@click.option("--agent", "agent_id", help="Agent the history is attributed to.")
@click.option("--team", "team_id", help="Team scope.")
@click.option(
    "--session", "session_id", help="Put every message in this session (message lists and documents)."
)
@click.option(
    "--batch",
    "batch_size",
    default=None,
    type=click.IntRange(1, 4096),
    help="Messages per transaction (default 128 with the rule-based backend, 16 with a model).",
)
@click.option(
    "--include-forgotten",
    is_flag=True,
    help="Store again messages you forgot (skipped otherwise); the ledger records that you did.",
)
@json_option
@click.pass_context
def import_(
    ctx: click.Context,
    path: str,
    fmt: str | None,
    since: str | None,
    dry_run: bool,
    user_id: str | None,
    agent_id: str | None,
    team_id: str | None,
    session_id: str | None,
    batch_size: int | None,
    include_forgotten: bool,
    as_json: bool,
) -> None:
    """Import a ChatGPT or Claude data export, message lists, documents, or a memory export.

    PATH is a ChatGPT or Claude export (conversations.json or the export's zip), a JSON
    or JSON-lines list of messages ({"role", "content", "name"?, "time"?}), a Markdown or
    text file or a folder of them (one document per file), or a file written by
    `veramem export memories --format jsonl` (which keeps its own ids and users, so --user,
    --session and --since do not apply to it). Messages already imported are skipped, so
    running it again (or after an interrupted run) adds only what is missing. Records
    that cannot be read are listed with their position and skipped. Messages you forgot
    are skipped and counted ("2 skipped: you forgot them on …"); --include-forgotten stores
    them again, and the ledger records it.
    """
    mem = open_memory(ctx)
    show = sys.stderr.isatty() and not as_json
    bar: Any = None
    seen = [0]

    def progress(done: int, total: int, unit: str, counts: dict[str, int]) -> None:
        nonlocal bar
        if not show:
            return
        if bar is None:
            bar = click.progressbar(
                length=max(total, 1), file=sys.stderr, show_eta=True, show_percent=True, label="Importing"
            )
        bar.label = (
            f"stored {counts['stored']:,} · skipped {counts['already_stored'] + counts['before_since']:,}"
        )
        bar.update(max(0, done - seen[0]))
        bar.render_progress()  # the counts change even when no more bytes were read
        seen[0] = done

    planned: list[dict[str, Any]] = []

    def would_store(rec: Any) -> None:
        if as_json:
            # a preview of each message, so a dry run of a huge export stays small in memory
            planned.append(
                {
                    "position": rec.position,
                    "session_id": rec.session_id,
                    "role": rec.role,
                    "time": rec.time,
                    "content": rec.content[:PREVIEW],
                    "chars": len(rec.content),
                }
            )
            return
        text = rec.content.replace("\n", " ")
        click.echo(
            f"{rec.session_id}  {(rec.time or '-')[:19]}  {rec.name or rec.role:>10}: "
            f"{text[:100]}{'…' if len(text) > 100 else ''}"
        )

    try:
        report = mem.import_history(
            path,
            format=fmt,
            user_id=user_id,
            agent_id=agent_id,
            team_id=team_id,
            session_id=session_id,
            since=since,
            dry_run=dry_run,
            batch_size=batch_size,
            progress=progress,
            on_record=would_store,
            include_forgotten=include_forgotten,
        )
    finally:
        if bar is not None:
            bar.render_finish()
        mem.close()
    if as_json:
        data = report.to_dict()
        if dry_run:
            data["would_store"] = planned
        emit_json(data)
    else:
        _print_import_summary(report, dry_run)
    _print_import_problems(report)
    if report.bad and report.read == 0:  # nothing in PATH could be read at all
        ctx.exit(int(ExitCode.INVALID_INPUT))


def _print_import_summary(report: ImportReport, dry_run: bool) -> None:
    """What the import stored (or would store), skipped and derived, and how fast, as text."""
    verb = "Would store" if dry_run else "Stored"
    unit = "record(s)" if report.format == "memories" else "message(s)"
    click.echo(
        f"{verb} {report.stored:,} {unit} from {report.path} ({report.format}"
        + (f", {report.sessions:,} session(s)" if report.sessions else "")
        + ")."
    )
    skipped = [
        (report.already_stored, "already stored"),
        (report.before_since, "before --since"),
        (report.empty, "without text"),
        (report.bad, "unreadable"),
        (report.forgotten, "forgotten (you forgot them on " + ", ".join(report.forgotten_on) + ")"),
    ]
    if any(n for n, _ in skipped):
        click.echo("Skipped " + ", ".join(f"{n:,} {why}" for n, why in skipped if n) + ".")
    m = report.memories
    if not dry_run and report.format != "memories" and report.stored:
        click.echo(
            f"Memories: {m['added']:,} added, {m['updated']:,} updated, {m['retracted']:,} retracted, "
            f"{m['rejected']:,} rejected. Linking continues in the background."
        )
    elif report.format == "memories":
        click.echo(
            f"{m['added']:,} memories ({m['versions']:,} versions), {m['episodes']:,} episodes, "
            f"{m['links']:,} links."
        )
    if report.stored and not dry_run:
        click.echo(f"{report.per_s:,.1f} per second over {report.seconds:.1f} s.", err=True)


def _print_import_problems(report: ImportReport) -> None:
    """The records skipped as unreadable (the first ones by position) and the import's notices, on stderr."""
    for p in report.problems:
        click.echo(f"skipped {p['position']}: {p['reason']}", err=True)
    if report.bad > len(report.problems):
        click.echo(f"… and {report.bad - len(report.problems):,} more unreadable record(s).", err=True)
    for notice in report.notices:
        click.echo(f"note: {notice}", err=True)
