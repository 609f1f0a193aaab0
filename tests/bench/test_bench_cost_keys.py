"""The bench reports what things cost: a cold CLI search, `status` from its checkpoint, one-message
adds, and peak memory per section (measurements only; nothing here asserts a time)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.mark.slow
def test_the_bench_reports_cold_cli_search_status_one_message_adds_and_memory_per_section(
    cli: Any, isolated_home: Path
) -> None:
    proc = cli(
        "bench", "--only", "latency,add,cli", "--sizes", "300", "--queries", "10", "--json", timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    data: dict[str, Any] = json.loads(proc.stdout)

    search = data["cli_search"]
    assert search["failed"] == 0 and search["runs"] == 5 and search["memories"] == 1000
    assert data["cli_search_cold_s"] == search["p50_s"] > search["python_start_s"] > 0
    assert (
        20 < search["rss_mb"] < 8_000 and search["help_rss_mb"] < search["rss_mb"]
    )  # a search loads the model

    status = data["search_latency_ms"]["300"]["status_ms"]
    assert status["ledger_entries"] >= 300 and status["ok"] is status["full_verify_ok"] is True
    assert status["p50"] > 0 and status["first"] > 0

    assert data["add"]["one_message_p50_ms"] > 0

    per_section = data["rss_mb"]
    assert set(per_section) == {"machine", "latency", "add", "cli"}
    assert all(0 < mb <= data["peak_rss_mb"] + 1 for mb in per_section.values())
    assert (
        per_section["latency"] > per_section["machine"]
    )  # the model and the store are counted where they load
