"""The ``tui`` bench section: time from starting the terminal app to its first paint and
to its first content (the memories list filled from the store), on the demo set, headless."""

from __future__ import annotations

import statistics

from ..demo import load_demo
from .runner import BenchContext, Section

RUNS = 5


def run_tui_section(ctx: BenchContext) -> Section:
    from ..tui.app import measure_first_content, measure_first_paint

    mem = ctx.new_memory("tui")
    try:
        load_demo(mem)
        paint = [measure_first_paint(mem, (120, 40)) * 1000 for _ in range(RUNS)]
        content = [measure_first_content(mem, (120, 40)) * 1000 for _ in range(RUNS)]
    finally:
        mem.close()
    data = {
        "tui_start_ms": {
            "first_paint_p50": round(statistics.median(paint), 1),
            "first_content_p50": round(statistics.median(content), 1),
            "runs": RUNS,
        }
    }
    rows = [
        (
            "TUI start to first paint / content",
            f"{statistics.median(paint):.0f} / "
            f"{statistics.median(content):.0f} ms (median of {RUNS}, "
            "app already imported)",
        )
    ]
    return Section(data, rows)
