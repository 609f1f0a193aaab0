"""`veramem doctor` reports each part with its fix, and its probes prove the invariants live."""

from __future__ import annotations

import json
from pathlib import Path

from support.fixtures import init_store, run_cli


def test_doctor_reports_every_part_and_the_probes_pass(isolated_home: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    proc = run_cli("doctor", "--probes", "--json")
    data = json.loads(proc.stdout)
    names = {c["name"] for c in data["checks"]}
    assert {"store", "ledger", "keyring", "embedder", "llm", "sync", "versions"} <= names
    assert len(data["probes"]) == 5 and all(p["passed"] for p in data["probes"]), data["probes"]
    assert all(p["proof"] for p in data["probes"])
    assert proc.returncode == 0 and data["ok"]


def test_doctor_names_the_fix_when_there_is_no_store(isolated_home: Path) -> None:
    proc = run_cli("doctor")
    assert proc.returncode != 0
    assert "veramem init" in proc.stdout


def test_demo_loads_a_set_with_a_conflict_and_a_tool_claim(isolated_home: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    proc = run_cli("demo", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["memories_added"] >= 5
    review = json.loads(run_cli("review", "--json").stdout)
    assert any(r["conflicts_with"] for r in review) and any(
        r["item"]["authority"] == "unendorsed" for r in review
    )
