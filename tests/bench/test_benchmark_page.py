"""docs/benchmarks.md is written from docs/bench.json, the rows `veramem bench` runs printed."""

from __future__ import annotations

import json

from veramem_desktop.bench.report import PAGE, RESULTS, merge, render


def test_the_benchmark_page_is_written_from_the_recorded_runs() -> None:
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    assert PAGE.read_text(encoding="utf-8") == render(results), (
        "docs/benchmarks.md differs from docs/bench.json: run `python -m veramem_desktop.bench.report`"
    )


def test_a_run_of_some_sections_replaces_those_sections_only() -> None:
    before = {
        "sections": {
            "latency": {"rows": [["search p50", "9 ms"]], "date": "d0", "commit": "c0", "machine": "m"},
            "truth": {"rows": [["truth search", "old"]], "date": "d0", "commit": "c0", "machine": "m"},
        }
    }
    run = {
        "machine": {"cpu_model": "CPU", "cpu_count": 2, "python": "3.11"},
        "table": {"machine": [["machine", "CPU"]], "truth": [["truth search", "new"]]},
        "rss_mb": {"truth": 500.0},
    }
    after = merge(before, run, date="d1", commit="c1")
    assert after["sections"]["latency"] == before["sections"]["latency"]
    truth = after["sections"]["truth"]
    assert truth["rows"] == [["truth search", "new"]]
    assert (truth["date"], truth["commit"], truth["peak_rss_mb"]) == ("d1", "c1", 500.0)
    assert "machine" not in after["sections"]
    page = render(after)
    assert "| truth search | new |" in page and "commit c1" in page and "| truth search | old |" not in page
