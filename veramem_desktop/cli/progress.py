"""Progress of a long command on stderr, drawn with rich's Progress (textual depends on rich already).

Shown only when stderr is a terminal and the command does not print JSON, so a script, a pipe or a log
sees nothing of it. A task shows what it does, a bar, how far it is (``120/250 messages``, or bytes in
their unit), the rate over the whole run (done / time since the start: not a recent window, which the
first fast batches would flatter) and the time left at that rate. When the total is not known the bar
pulses and only the count, the rate and the time so far are shown; work that reports no count at all
(a backup or a rekey, one step inside SQLite) shows a spinner and the time so far.

``get_time`` and ``console`` are the seams the snapshot tests use (a fixed clock, a fake terminal).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from rich.console import Console
from rich.filesize import decimal
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
)
from rich.table import Column
from rich.text import Text


def shown(as_json: bool = False) -> bool:
    """Whether a progress display belongs on stderr: a terminal, and no JSON asked for."""
    return not as_json and sys.stderr.isatty()


def _amount(n: float, unit: str) -> str:
    return decimal(int(n)) if unit == "bytes" else f"{int(n):,}"


def _clock(seconds: float) -> str:
    return str(timedelta(seconds=int(max(seconds, 0))))


def _run_rate(task: Task) -> float | None:
    """Done per second since the task started (None before anything is done)."""
    elapsed = task.elapsed
    if not elapsed or not task.completed:
        return None
    return task.completed / elapsed


class CountColumn(ProgressColumn):
    """``120/250 messages``, ``1.2 MB/4.8 MB``, or ``120 messages`` when the total is not known."""

    def render(self, task: Task) -> Text:
        unit = str(task.fields.get("unit", ""))
        if not unit:  # work that reports no count (a backup in one step): the spinner and the time only
            return Text("")
        shown_unit = "" if unit == "bytes" else f" {unit}"
        if task.total is None:
            return Text(f"{_amount(task.completed, unit)}{shown_unit}")
        return Text(f"{_amount(task.completed, unit)}/{_amount(task.total, unit)}{shown_unit}")


class RunRateColumn(ProgressColumn):
    """The rate over the whole run: what was done divided by the time since the start."""

    def render(self, task: Task) -> Text:
        rate = _run_rate(task)
        unit = str(task.fields.get("unit", ""))
        if not unit:
            return Text("")
        if rate is None:
            return Text("–/s")
        if unit == "bytes":
            return Text(f"{decimal(int(rate))}/s")
        return Text(f"{rate:,.1f}/s" if rate < 100 else f"{rate:,.0f}/s")


class RunEtaColumn(ProgressColumn):
    """The time left at the whole run's rate (``left 0:01:05``), or the time so far when no total is known."""

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text(f"{_clock(task.elapsed or 0)} so far")
        if task.finished:
            return Text(f"took {_clock(task.elapsed or 0)}")
        rate = _run_rate(task)
        if rate is None:
            return Text("left –:––:––")
        return Text(f"left {_clock((task.total - task.completed) / rate)}")


def make_progress(console: Console, *, get_time: Callable[[], float] | None = None) -> Progress:
    """The one layout every long command uses."""
    return Progress(
        SpinnerColumn(finished_text=" "),
        TextColumn("{task.description}", table_column=Column(no_wrap=True)),
        BarColumn(bar_width=20),
        CountColumn(table_column=Column(no_wrap=True)),
        RunRateColumn(table_column=Column(no_wrap=True)),
        RunEtaColumn(table_column=Column(no_wrap=True)),
        # last, so a narrow terminal cuts it first: what the work has given so far ("120 stored")
        TextColumn("{task.fields[note]}", table_column=Column(no_wrap=True, overflow="ellipsis")),
        console=console,
        transient=True,
        get_time=get_time,
        refresh_per_second=8,
    )


class Tracker:
    """One task of a progress display; every method does nothing when the display is not shown."""

    def __init__(self, progress: Progress | None, task: TaskID | None) -> None:
        self.progress = progress
        self.task = task

    def update(self, completed: float, *, total: float | None = None, note: str | None = None) -> None:
        if self.progress is None or self.task is None:
            return
        changes: dict[str, Any] = {"completed": completed}
        if total is not None:
            changes["total"] = total
        if note is not None:
            changes["note"] = note
        self.progress.update(self.task, **changes)

    def advance(self, n: float = 1) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.advance(self.task, n)

    def start(self, description: str, *, total: float | None = None, unit: str = "") -> Tracker:
        """A further task on the same display (a consolidation's next stage)."""
        if self.progress is None:
            return self
        return Tracker(self.progress, self.progress.add_task(description, total=total, unit=unit, note=""))


@contextmanager
def working(description: str, *, show: bool) -> Iterator[Tracker]:
    """A spinner and the time so far, for work that reports no count."""
    with progress_of(description, total=None, unit="", show=show) as tracker:
        yield tracker


@contextmanager
def progress_of(
    description: str,
    *,
    total: float | None = None,
    unit: str = "",
    show: bool,
    console: Console | None = None,
    get_time: Callable[[], float] | None = None,
) -> Iterator[Tracker]:
    """A progress display for one long piece of work (nothing at all when ``show`` is false)."""
    if not show:
        yield Tracker(None, None)
        return
    progress = make_progress(console or Console(stderr=True), get_time=get_time)
    with progress:
        yield Tracker(progress, progress.add_task(description, total=total, unit=unit, note=""))
