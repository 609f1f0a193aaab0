"""docs/benchmarks.md is written from docs/bench.json, the rows `veramem bench` runs printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veramem_desktop.bench.report import PAGE, RESULTS, differences, main, merge, render


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


def test_two_runs_differ_only_in_what_they_measured_never_in_times_or_the_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = {
        "machine": {"cpu_model": "A"},
        "peak_rss_mb": 500.0,
        "table": {"locomo": [["locomo", "3 conversations, 201.0 s"]]},
        "locomo": {"seconds": 201.0, "hybrid": {"cat1-4": {"recall@10": 0.8233}}, "links": [1, 2]},
        "truth": {"search": {"current_first": 1.0}, "latency_ms": {"p50": 9}},
    }
    again = json.loads(json.dumps(run))
    again["machine"]["cpu_model"] = "B"
    again["peak_rss_mb"], again["locomo"]["seconds"], again["truth"]["latency_ms"]["p50"] = 700.0, 250.0, 12
    again["table"]["locomo"][0][1] = "3 conversations, 250.0 s"
    assert differences(run, again) == []
    again["locomo"]["hybrid"]["cat1-4"]["recall@10"] = 0.8246
    again["locomo"]["links"] = [1, 3]
    del again["truth"]["search"]
    assert differences(run, again) == [
        ".locomo.hybrid.cat1-4.recall@10: 0.8233 -> 0.8246",
        ".locomo.links[1]: 2 -> 3",
        ".truth.search: only in before",
    ]
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps(run))
    after.write_text(json.dumps(again))
    assert main(["compare", str(before), str(before)]) == 0
    assert main(["compare", str(before), str(after)]) == 1
    assert ".locomo.links[1]: 2 -> 3" in capsys.readouterr().out
