"""The outcome loop: feedback on a trace, consolidation, and trajectory export."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from veramem_desktop.core.errors import ExitCode

from .common import emit_json, json_option, pass_memory, say
from .progress import Tracker, progress_of, shown, working
from .suggest import SuggestingGroup

if TYPE_CHECKING:
    from veramem_desktop.core.lifecycle.consolidation import ConsolidateReport

    from ..memory import Memory


@click.command(context_settings={"ignore_unknown_options": True})  # so a negative REWARD is no option
@click.argument("trace_id")
@click.argument("reward", type=click.FloatRange(-1.0, 1.0))
@click.option(
    "--cited",
    "cited",
    multiple=True,
    metavar="MEMORY_ID",
    help="A memory you relied on (repeatable); only ids the trace retrieved count.",
)
@json_option
@pass_memory
def feedback(
    ctx: click.Context, mem: Memory, trace_id: str, reward: float, cited: tuple[str, ...], as_json: bool
) -> None:
    """Say how well a search or answer went: REWARD from -1 (harmful) to 1 (exactly right).

    Credits the memories you name with --cited, else the ones the answer cited, else all
    it retrieved; their utility moves their ranking in later searches.
    """
    result = mem.outcomes.feedback(trace_id, reward, cited_ids=list(cited) if cited else None, by="person")
    if as_json:
        emit_json(result)
        return
    if result["repeated"]:
        click.echo(f"Trace {trace_id} already had this reward; nothing changed.")
        return
    base = result["baseline"]
    relative = (
        f" (your mean so far {base:+.2f}, so it counts as {result['advantage']:+.2f})"
        if base is not None
        else ""
    )
    click.echo(f"Reward {reward:+.2f} recorded for {trace_id}{relative}.")
    click.echo(
        f"Credited {len(result['credited'])} memor{'y' if len(result['credited']) == 1 else 'ies'} "
        f"({result['basis']})."
    )
    for c in result["credited"]:
        click.echo(f"  {c['id']}  utility {c['utility']:.2f}")
    if result["ignored_ids"]:
        click.echo(f"Ignored (not retrieved by this trace): {', '.join(result['ignored_ids'])}", err=True)
    learned = result["learned"]
    if learned.get("trained"):
        click.echo(f"Usage-learned ranking: trained on {learned['samples']} outcomes.")
    else:
        click.echo(
            f"Usage-learned ranking: not trained yet ({learned.get('outcomes', 0)} outcomes; it needs 10 "
            "with both good and bad ones)."
        )


_LABELS = {
    "revise": "Revising",
    "archive": "Archiving",
    "merge": "Merging",
    "summarise": "Summarising",
    "distil": "Distilling",
    "decay": "Decaying",
}


@click.command()
@json_option
@pass_memory
def consolidate(ctx: click.Context, mem: Memory, as_json: bool) -> None:
    """Archive unhelpful memories, merge near-duplicates, summarise sessions, distil experiences, decay strength.

    Prints what each stage found, wrote and skipped (and why). Exits 11 when a model
    failure left something undone; run it again once the model answers.
    """
    mem.unlock()  # a passphrase is asked for (when it is) before the display starts
    with progress_of("Consolidating", show=shown(as_json)) as overall:
        stages: dict[str, Tracker] = {}

        def progress(stage: str, n: int, total: int) -> None:
            if stage not in stages:  # each stage counts its own items, with its own total
                stages[stage] = overall.start(_LABELS.get(stage, stage), total=max(total, 1), unit="items")
            stages[stage].update(n)

        report = mem.consolidation.run(progress=progress)
    if as_json:
        emit_json(report.to_dict())
    else:
        _print_consolidation(report)
    if report.model_failures:
        ctx.exit(int(ExitCode.MODEL_ERROR))


def _print_consolidation(report: ConsolidateReport) -> None:
    """The consolidation report as text: a line per stage on stdout, notices and model failures on stderr."""
    click.echo(f"Model: {report.model}")
    for name, stage in report.stages.items():
        skipped = ", ".join(f"{reason} {n}" for reason, n in sorted(stage.skipped.items()))
        click.echo(
            f"{name:10} found {stage.found:5}  wrote {stage.written:5}"
            + (f"  reinforced {len(stage.reinforced)}" if stage.reinforced else "")
            + (f"  skipped {sum(stage.skipped.values())} ({skipped})" if skipped else "")
        )
    for notice in report.notices:
        say(f"note: {notice}", err=True)
    if report.model_failures:
        click.echo(
            f"{report.model_failures} item(s) were left for the next run because the model failed.",
            err=True,
        )


class _ExportGroup(SuggestingGroup):
    """``export all …``, ``export memories …``, ``export traces …`` and ``export training …``; the older
    ``export PATH`` means traces."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["traces", *args]
        return super().parse_args(ctx, args)


@click.group(name="export", cls=_ExportGroup, invoke_without_command=False, no_args_is_help=True)
def export() -> None:
    """Write everything (`export all PATH`: every message and memory, re-importable), your memories with
    only the messages they quote (`export memories PATH`), the search and answer traces (`export traces
    PATH`, also `export PATH`) or training records of write decisions and answers (`export training PATH
    --kind --since`) to a PLAINTEXT file, created readable by you only.
    """


@export.command(name="all")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--user", "user_id", help="Only this user's messages and memories.")
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@json_option
@pass_memory
def export_all(
    ctx: click.Context, mem: Memory, path: str, user_id: str | None, force: bool, as_json: bool
) -> None:
    """Every message and every memory (versions, evidence, links) in one JSON-lines file.

    `veramem import PATH` reads it back: into an empty store it recreates the same messages and
    memories under the same ids; into this store it adds nothing. The file is PLAINTEXT (mode 0600).
    """
    mem.unlock()  # a passphrase is asked for (when it is) before the display starts
    with working("Exporting everything", show=shown(as_json)):
        counts = mem.importer.export_all(path, user_id=user_id, overwrite=force)
    if as_json:
        emit_json({"path": path, "format": "jsonl", **counts})
    else:
        click.echo(
            f"Exported {counts['episodes']:,} messages and {counts['memories']:,} memories "
            f"({counts['versions']:,} versions, {counts['links']:,} links) to {path}."
        )
    _plaintext_warning(path)


@export.command(name="memories")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "markdown"]),
    default="jsonl",
    show_default=True,
    help="jsonl can be imported again (`veramem import PATH`); markdown is for reading.",
)
@click.option("--user", "user_id", help="Only this user's memories.")
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@json_option
@pass_memory
def export_memories(
    ctx: click.Context, mem: Memory, path: str, fmt: str, user_id: str | None, force: bool, as_json: bool
) -> None:
    """Every memory with its versions, validity, evidence quotes and links, and ONLY the messages
    those memories quote (not every message: `export all PATH` writes everything).

    Ids are kept, so `veramem import PATH` into another (or an emptied) store recreates the
    same memories, versions, evidence and links. The file is PLAINTEXT (mode 0600).
    """
    mem.unlock()  # a passphrase is asked for (when it is) before the display starts
    with working("Exporting memories", show=shown(as_json)):
        counts = mem.importer.export_memories(path, format=fmt, user_id=user_id, overwrite=force)
    if as_json:
        emit_json({"path": path, "format": fmt, **counts})
    else:
        click.echo(
            f"Exported {counts['memories']:,} memories ({counts['versions']:,} versions), "
            f"{counts['episodes']:,} quoted messages (only those; `export all` writes every message) and "
            f"{counts['links']:,} links to {path}."
            + (
                f" Left out {counts['left_out']:,} rejected, held or expired version(s) and message(s)."
                if counts.get("left_out")
                else ""
            )
        )
    _plaintext_warning(path)


def _plaintext_warning(path: str) -> None:
    click.echo(
        f"{path} is PLAINTEXT (unencrypted) because you asked for it; it is readable by you only "
        "(mode 0600). Keep it somewhere private and delete it when done.",
        err=True,
    )


@export.command(name="traces")
@click.argument("path", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--user", "user_id", help="Only this user's traces.")
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@pass_memory
def export_traces(ctx: click.Context, mem: Memory, path: str, user_id: str | None, force: bool) -> None:
    """Write every trace as JSON lines (query, route, retrieved and cited ids, answer, reward, writes).

    The file is PLAINTEXT: the queries and answers in it leave the encrypted store. Use
    "-" to write to stdout.
    """
    if path == "-":
        import json

        n = 0
        for i, record in enumerate(mem.outcomes.trajectories(user_id=user_id), start=1):
            click.echo(json.dumps(record, ensure_ascii=False, sort_keys=True))
            n = i
    else:
        mem.unlock()
        with working("Exporting traces", show=shown()):
            n = mem.outcomes.export_trajectories(path, user_id=user_id, overwrite=force)
    where = "stdout" if path == "-" else path
    click.echo(
        f"Exported {n} trace(s) to {where}. This export is plaintext (unencrypted) because you asked for it; "
        "keep it somewhere private and delete it when done.",
        err=True,
    )


@export.command(name="training")
@click.argument("path", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--kind",
    "kind",
    type=click.Choice(["write", "answer", "all"]),
    default="all",
    show_default=True,
    help="write: the memory manager's ADD/UPDATE/DELETE/NOOP decisions; answer: questions, what was "
    "retrieved and cited, the answer and its reward.",
)
@click.option("--since", help="Only records made at or after this time (a date or an ISO time).")
@click.option("--user", "user_id", help="Only this user's records.")
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@json_option
@pass_memory
def export_training(
    ctx: click.Context,
    mem: Memory,
    path: str,
    kind: str,
    since: str | None,
    user_id: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Write training records as JSON lines, in the schema of docs/schema/training-export.schema.json.

    A write record holds the new messages (and the earlier turns given as context), the
    candidate memory, the neighbours offered with their texts, the operation proposed and
    applied, the guard that changed it, the resulting memory and the rewards that later
    reached it. An answer record holds the question, the retrieved items with their texts,
    the cited ids, the answer and its reward. Nothing withheld, rejected or forgotten is
    written. The file is PLAINTEXT (mode 0600); use "-" for stdout.
    """
    import json

    kinds = ["write", "answer"] if kind == "all" else [kind]
    if path == "-":
        counts = {"write": 0, "answer": 0}
        for record in mem.outcomes.training_records(kinds=kinds, since=since, user_id=user_id):
            click.echo(json.dumps(record, ensure_ascii=False, sort_keys=True))
            counts[record["kind"]] += 1
    else:
        mem.unlock()  # a passphrase is asked for (when it is) before the display starts
        with working("Exporting training records", show=shown(as_json)):
            counts = mem.outcomes.export_training(
                path, kinds=kinds, since=since, user_id=user_id, overwrite=force
            )
    where = "stdout" if path == "-" else path
    if as_json and path != "-":
        emit_json({"path": path, **counts})
    held = (
        f"; {counts['withheld']} left out (they hold withheld or rejected material)"
        if counts.get("withheld")
        else ""
    )
    click.echo(
        f"Exported {counts['write']} write decision(s) and {counts['answer']} answer(s) to {where}{held}. "
        "This export is PLAINTEXT (unencrypted) because you asked for it"
        + ("" if path == "-" else ", readable by you only (mode 0600)")
        + "; keep it somewhere private and delete it when done.",
        err=True,
    )
