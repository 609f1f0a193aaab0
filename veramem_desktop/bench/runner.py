"""Runs the bench's named sections in a temporary store and collects one JSON object.

Each section is a function taking the run's :class:`BenchContext` and returning a
:class:`Section` (its keys for the JSON object and its rows for the printed table).
Later measurements add a function and a line in :data:`SECTIONS`.
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from ..memory import Memory

BENCH_PASSPHRASE = "veramem bench throwaway store"


@dataclass
class BenchOptions:
    only: tuple[str, ...] = ()  # empty: every section
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    queries: int = 200
    locomo: Path | None = None
    ablation: bool = True
    cv: bool = False  # LoCoMo: leave-one-conversation-out choice of the recipe (bench/locomo_cv.py)


@dataclass
class Section:
    data: dict[str, Any]
    rows: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class BenchContext:
    options: BenchOptions
    home: Path
    progress: Callable[[str], None]
    _embedder: Any = None
    _count: int = 0

    @property
    def embedder(self) -> Any:
        """The real ONNX embedder, loaded once and shared by every section's store."""
        if self._embedder is None:
            from ..models.embedder import default_embedder

            self._embedder = default_embedder()
            self._embedder.load()
        return self._embedder

    def new_memory(self, name: str) -> Memory:
        """A fresh encrypted store (real SQLCipher) under the bench's temporary home."""
        self._count += 1
        mem, _ = Memory.create(
            self.home / f"{self._count:02d}-{name}",
            passphrase=BENCH_PASSPHRASE,
            use_keyring=False,
            embedder=self.embedder,
        )
        return mem


def machine(ctx: BenchContext) -> Section:
    import onnxruntime

    from veramem_desktop.core.storage.stats import sqlite_version

    data = {
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "onnxruntime": onnxruntime.__version__,
        "sqlite": sqlite_version(),
    }
    return Section(
        {"machine": data},
        [
            (
                "machine",
                f"{data['cpu_model']} · {data['cpu_count']} cpu · "
                f"python {data['python']} · onnxruntime {data['onnxruntime']}",
            )
        ],
    )


def peak_rss(ctx: BenchContext) -> Section:
    mb = peak_rss_mb()
    return Section({"peak_rss_mb": mb}, [("peak RSS", f"{mb:.0f} MB")])


def reset_peak_rss() -> bool:
    """Start a new peak-RSS measurement for this process (Linux: ``clear_refs`` 5 resets VmHWM)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def section_peak_rss_mb(reset: bool) -> float:
    """The peak RSS since :func:`reset_peak_rss` (VmHWM); where it cannot be reset, the process's peak."""
    if reset:
        try:
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
        except (OSError, ValueError, IndexError):
            pass
    return peak_rss_mb()


def peak_rss_mb() -> float:
    raw = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(
        raw / (1024 * 1024) if sys.platform == "darwin" else raw / 1024, 1
    )  # bytes on macOS, KiB on Linux


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _lazy(module: str, function: str) -> Callable[[BenchContext], Section]:
    """The section ``function`` of ``module`` (in this package), imported only when the section runs."""

    def run(ctx: BenchContext) -> Section:
        section: Callable[[BenchContext], Section] = getattr(import_module(module, __package__), function)
        return section(ctx)

    return run


#: the selectable sections, in the order they run
SECTIONS: dict[str, Callable[[BenchContext], Section]] = {
    "latency": _lazy(".latency", "run_latency"),
    "add": _lazy(".latency", "run_add"),
    "import": _lazy(".import_section", "run_import_section"),
    "forget": _lazy(".forget_section", "run_forget_section"),
    "sync": _lazy(".sync_section", "run_sync_section"),
    "tui": _lazy(".tui_section", "run_tui_section"),
    "cli": _lazy(".cli_section", "run_cli_section"),
    "locomo": _lazy(".locomo_section", "run_locomo_section"),
    "truth": _lazy(".truth_section", "run_truth_section"),
    "truth-natural": _lazy(".truth_natural_section", "run_truth_natural_section"),
    "extraction": _lazy(".extraction_section", "run_extraction_section"),
}


@contextmanager
def bench_home() -> Iterator[Path]:
    """A temporary VERAMEM_HOME for the run, removed afterwards whatever happens."""
    home = Path(tempfile.mkdtemp(prefix="veramem-bench-"))
    saved = {k: os.environ.get(k) for k in ("VERAMEM_HOME", "VERAMEM_NO_KEYRING")}
    os.environ["VERAMEM_HOME"] = str(home)
    os.environ["VERAMEM_NO_KEYRING"] = "1"
    try:
        yield home
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(home, ignore_errors=True)


def run(
    options: BenchOptions, progress: Callable[[str], None] = lambda _: None
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Run the chosen sections; returns the JSON object and the table rows."""
    unknown = [s for s in options.only if s not in SECTIONS]
    if unknown:
        raise ValueError(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    chosen = [s for s in SECTIONS if not options.only or s in options.only]
    data: dict[str, Any] = {}
    rows: list[tuple[str, str]] = []
    with bench_home() as home:
        ctx = BenchContext(options, home, progress)
        per_section: dict[str, float] = {}
        table: dict[str, list[list[str]]] = {}
        for name, fn in [("machine", machine), *((s, SECTIONS[s]) for s in chosen)]:
            reset = reset_peak_rss()
            section = fn(ctx)
            per_section[name] = section_peak_rss_mb(reset)
            data.update(section.data)
            rows.extend(section.rows)
            table[name] = [[label, value] for label, value in section.rows]
        section = peak_rss(ctx)
        data.update(section.data)
        rows.extend(section.rows)
        data["rss_mb"] = per_section
        # each section's printed rows, so docs/benchmarks.md is written from the JSON alone (bench/report.py)
        data["table"] = table
        rows.append(
            (
                "  peak RSS per section",
                ", ".join(f"{k} {v:.0f} MB" for k, v in per_section.items() if k != "machine"),
            )
        )
    return data, rows


def format_table(rows: list[tuple[str, str]]) -> str:
    width = max((len(k) for k, _ in rows), default=0)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)
