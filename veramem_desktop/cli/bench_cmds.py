"""``veramem bench``: measure this build on this machine, in a temporary store."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from .common import F, emit_json, json_option


def _int_list(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter("give whole numbers separated by commas, e.g. 1000,10000") from None
    if not sizes or any(s < 1 for s in sizes):
        raise click.BadParameter("give at least one positive size")
    return sizes


def _file_option(flag: str, dest: str, help: str) -> Callable[[F], F]:
    """An option naming one file (not a folder), given as a Path; None when the option is left out."""
    return click.option(flag, dest, type=click.Path(dir_okay=False, path_type=Path), default=None, help=help)


@click.command()
@click.option(
    "--only",
    default="",
    metavar="SECTION[,SECTION]",
    help="Run only these sections, e.g. latency,add,locomo,truth (machine and peak RSS are always "
    "reported); unknown names list the rest.",
)
@click.option(
    "--sizes",
    default="1000,10000,100000",
    callback=_int_list,
    show_default=True,
    help="Store sizes (memories) for the search latency section.",
)
@click.option(
    "--queries",
    default=200,
    type=click.IntRange(1, 100_000),
    show_default=True,
    help="Searches timed at each size.",
)
@_file_option(
    "--locomo",
    "locomo_path",
    "A LoCoMo JSON file (default: ../shared/bench/locomo/locomo_dev.json beside the repository).",
)
@click.option("--no-ablation", is_flag=True, help="Skip the LoCoMo ablation of the recipe's extras.")
@click.option(
    "--cv",
    is_flag=True,
    help="LoCoMo: also choose the recipe leave-one-conversation-out (on the other conversations only) "
    "and report the held-out recall's mean and spread.",
)
@_file_option(
    "--save",
    "save_path",
    "Also write the JSON object to this file (e.g. to keep it beside the printed table).",
)
@json_option
def bench(
    only: str,
    sizes: tuple[int, ...],
    queries: int,
    locomo_path: Path | None,
    no_ablation: bool,
    cv: bool,
    save_path: Path | None,
    as_json: bool,
) -> None:
    """Measure search latency, add throughput, peak memory and LoCoMo recall.

    Everything runs in a temporary encrypted store with the real embedding model; the
    store is deleted afterwards. Progress goes to stderr; the table (or JSON) to stdout.
    """
    from ..bench import SECTIONS, BenchOptions, run
    from ..bench.runner import format_table

    chosen = tuple(s.strip() for s in only.split(",") if s.strip())
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        raise click.BadParameter(
            f"unknown section {', '.join(unknown)}; choose from {', '.join(SECTIONS)}", param_hint="--only"
        )
    options = BenchOptions(
        only=chosen, sizes=sizes, queries=queries, locomo=locomo_path, ablation=not no_ablation, cv=cv
    )
    data, rows = run(options, progress=lambda msg: click.echo(msg, err=True))
    if save_path is not None:
        save_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if as_json:
        emit_json(data)
    else:
        click.echo(format_table(rows))
