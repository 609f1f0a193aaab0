"""``veramem import``: chat history, message lists, documents, or a memory export, into the store."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from veramem_desktop.core.errors import ExitCode
from veramem_desktop.core.transfer.chats import FORMATS

from .common import emit_json, json_option, pass_memory
from .import_summary import import_json, print_problems, print_summary
from .progress import Tracker, progress_of, shown

if TYPE_CHECKING:
    from ..memory import Memory
    from ..services.importer import ImportProgress

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
    "--verbose",
    "-v",
    is_flag=True,
    help="Also list which sentences gave no memory and why, and every skipped record.",
)
@click.option(
    "--include-forgotten",
    is_flag=True,
    help="Store again messages you forgot (skipped otherwise); the ledger records that you did.",
)
@json_option
@pass_memory
def import_(
    ctx: click.Context,
    mem: Memory,
    path: str,
    fmt: str | None,
    since: str | None,
    dry_run: bool,
    user_id: str | None,
    agent_id: str | None,
    team_id: str | None,
    session_id: str | None,
    batch_size: int | None,
    verbose: bool,
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
    them again, and the ledger records it. It ends with one short table: what was stored
    and skipped (and why), the memories it gave, the time and rate over the whole run; a
    dry run's JSON says `would_store`, never `stored`.
    """
    planned: list[dict[str, Any]] = []
    mem.unlock()  # a passphrase is asked for (when it is) before the display starts and the clock runs
    started = time.monotonic()
    show = shown(as_json)
    total = _count_records(path, fmt, session_id) if show else None  # a streaming pass: parsing is cheap
    with progress_of("Importing", total=total, unit="messages", show=show) as bar:
        report = mem.importer.import_history(
            path,
            format=fmt,
            user_id=user_id,
            agent_id=agent_id,
            team_id=team_id,
            session_id=session_id,
            since=since,
            dry_run=dry_run,
            batch_size=batch_size,
            progress=_import_progress(bar),
            on_record=_previewer(as_json, planned),
            include_forgotten=include_forgotten,
        )
    mem.close()  # inside the clock (the background linker's grace period); closing again at the end is a no-op
    seconds = time.monotonic() - started  # the whole run: the count pass, the import, closing the store
    if as_json:
        emit_json(import_json(report, planned, seconds))
    else:
        print_summary(report, seconds)
    print_problems(report, verbose=verbose)
    if report.bad and report.read == 0:  # nothing in PATH could be read at all
        ctx.exit(int(ExitCode.INVALID_INPUT))


def _import_progress(bar: Tracker) -> ImportProgress:
    """The importer's progress as the display's: messages read of those counted, and how many were stored;
    then its second step, deriving memories in message-time order, as a task of its own."""
    from veramem_desktop.services.importer import DERIVED_UNIT

    deriving: list[Tracker] = []

    def progress(done: int, total: int, unit: str, counts: dict[str, int]) -> None:
        if unit != DERIVED_UNIT:
            bar.update(counts["read"], note=f"{counts['stored']:,} stored")
            return
        if not deriving:
            deriving.append(bar.start("Deriving memories", total=total, unit="messages"))
        deriving[0].update(done, total=total)

    return progress


def _previewer(as_json: bool, planned: list[dict[str, Any]]) -> Callable[[Any], None]:
    """What a dry run does with each message it would store: a line on stdout, or a preview kept for JSON."""

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

    return would_store


def _count_records(path: str, fmt: str | None, session_id: str | None) -> int | None:
    """How many messages (or document parts) PATH holds, by one streaming pass over it before the import,
    so the progress has a true total; None for a memory export or a file that does not read (the import
    itself then says why)."""
    from pathlib import Path

    from veramem_desktop.core.errors import VeramemError
    from veramem_desktop.core.transfer.chats import open_source
    from veramem_desktop.core.transfer.records import Record

    try:
        src = open_source(Path(path).expanduser(), fmt, session_id=session_id)
        if src.format == "memories":
            return None
        try:
            return sum(1 for item in src.items() if isinstance(item, Record))
        finally:
            src.close()
    except VeramemError:
        return None
