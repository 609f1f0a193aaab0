"""What an import says when it is done: one short table on stdout, problems and notices on stderr.

The table: what was stored, what was skipped and why (already there, before --since, forgotten, bad),
the memories the messages gave (added, updated, retracted), and the time and rate over the whole run,
from the command's start to its end (the count pass, opening the store and closing it included: the
time a person waited). The account of which sentences gave no memory and why is a detail: it is in
the JSON and, with --verbose, on stderr; a model's fallback or failure is always shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from .common import say

if TYPE_CHECKING:
    from veramem_desktop.core.transfer.import_report import ImportReport

#: the rule-based extractor's account of the sentences that gave no memory: ``Notice(backend, task)``
#: lines begin with their backend and task, and this one is a detail, not a problem
DETAIL_PREFIX = "rule-based extract: "
#: unreadable records listed without --verbose (all are counted)
PROBLEMS_SHOWN = 5


def import_json(report: ImportReport, planned: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """The report as JSON: a dry run says ``would_store`` (a count) and lists its ``preview``; nothing
    was stored, so it has no ``stored``."""
    data = report.to_dict()
    data["run_seconds"] = round(seconds, 2)
    data["run_per_s"] = round(report.read / seconds, 1) if seconds else 0.0
    if report.dry_run:
        data["would_store"] = data.pop("stored")
        data["preview"] = planned
    return data


def _skipped(report: ImportReport) -> str:
    counts = report.counts()
    parts = [
        (report.already_stored, "already there"),
        (report.before_since, "before --since"),
        (counts.get("forgotten", 0), "forgotten"),
        (report.bad, "bad"),
    ]
    if report.empty:
        parts.append((report.empty, "without text"))
    total = sum(n for n, _ in parts)
    return f"{total:,}: " + " · ".join(f"{n:,} {why}" for n, why in parts)


def summary_rows(report: ImportReport, seconds: float) -> list[tuple[str, str]]:
    """The table's rows: (label, value)."""
    unit = "records" if report.format == "memories" else "messages"
    rows = [("skipped", _skipped(report))]
    m = report.memories
    if report.format == "memories":
        rows.append(
            (
                "memories",
                f"{m['added']:,} added ({m['versions']:,} versions) · {m['episodes']:,} messages · "
                f"{m['links']:,} links",
            )
        )
    elif not report.dry_run:
        rows.append(
            ("memories", f"{m['added']:,} added · {m['updated']:,} updated · {m['retracted']:,} retracted")
        )
    rate = report.read / seconds if seconds else 0.0
    rows.append(("time", f"{seconds:,.1f} s · {rate:,.1f} {unit}/s over the whole run"))
    return rows


def print_summary(report: ImportReport, seconds: float) -> None:
    """The first line says what was stored (or would be), then the table."""
    verb = "Would store" if report.dry_run else "Stored"
    unit = "record(s)" if report.format == "memories" else "message(s)"
    click.echo(
        f"{verb} {report.stored:,} {unit} from {report.path} ({report.format}"
        + (f", {report.sessions:,} session(s)" if report.sessions else "")
        + ")."
    )
    for label, value in summary_rows(report, seconds):
        click.echo(f"  {label:<9} {value}")


def print_problems(report: ImportReport, *, verbose: bool) -> None:
    """Unreadable records (the first few, all with --verbose) and the notices, on stderr; the account of
    what gave no memory only with --verbose."""
    listed = report.problems if verbose else report.problems[:PROBLEMS_SHOWN]
    for p in listed:
        say(f"skipped {p['position']}: {p['reason']}", err=True)
    if report.bad > len(listed):
        more = report.bad - len(listed)
        hint = "" if verbose else " (--verbose lists them)"
        click.echo(f"… and {more:,} more unreadable record(s){hint}.", err=True)
    details = [n for n in report.notices if n.startswith(DETAIL_PREFIX)]
    for notice in report.notices:
        if verbose or notice not in details:
            say(f"note: {notice}", err=True)
