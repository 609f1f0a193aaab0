"""Trajectory export and the outcome commands as a person runs them."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from support.fixtures import init_store, run_cli
from veramem_desktop.core.errors import ExitCode, InvalidInputError

from veramem_desktop.memory import Memory

FIELDS = {
    "trace_id",
    "kind",
    "created_at",
    "user_id",
    "agent_id",
    "query",
    "route",
    "retrieved_ids",
    "cited_ids",
    "answer",
    "abstained",
    "reward",
    "rewarded_at",
    "write_operations",
}


def test_export_writes_one_owner_only_json_line_per_trace_with_its_outcome(
    mem: Memory, tmp_path: Path
) -> None:
    mem.add(["I like green tea.", "I like black tea."])
    first = mem.search("which tea do I like")
    second = mem.search("green tea")
    mem.add("I like oolong.", user_id="bob")
    mem.search("oolong", user_id="bob")
    credited = mem.feedback(first.trace_id, 0.5)["credited"]
    target = tmp_path / "trajectories.jsonl"
    assert mem.export_trajectories(target) == 3
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    records = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [r["trace_id"] for r in records[:2]] == [first.trace_id, second.trace_id]
    assert all(set(r) == FIELDS for r in records)
    rewarded = records[0]
    assert rewarded["query"] == "which tea do I like" and rewarded["reward"] == 0.5
    assert rewarded["retrieved_ids"] == [h.id for h in first.results + first.shared]
    ops = rewarded["write_operations"]
    assert [o["op"] for o in ops] == ["memory.outcome"] * len(credited) + ["trace.feedback"]
    assert [o["target"] for o in ops[:-1]] == [c["id"] for c in credited]
    assert records[1]["reward"] is None and records[1]["write_operations"] == []
    mine = tmp_path / "mine.jsonl"
    assert mem.export_trajectories(mine, user_id="me") == 2


def test_export_refuses_to_overwrite_unless_asked(mem: Memory, tmp_path: Path) -> None:
    target = tmp_path / "t.jsonl"
    target.write_text("keep me\n")
    with pytest.raises(InvalidInputError, match="exists"):
        mem.export_trajectories(target)
    assert target.read_text() == "keep me\n"
    target.chmod(0o644)
    assert mem.export_trajectories(target, overwrite=True) == 0
    assert target.read_text() == "" and stat.S_IMODE(target.stat().st_mode) == 0o600
    with pytest.raises(InvalidInputError, match="folder"):
        mem.export_trajectories(tmp_path)


@pytest.mark.e2e
@pytest.mark.slow
def test_feedback_consolidate_and_export_from_the_command_line(isolated_home: Path, tmp_path: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("add", "I like green tea. I like black tea. I drink it at noon.").returncode == 0
    found = json.loads(run_cli("search", "which tea do I like", "--json").stdout)
    memory_ids = [r["id"] for r in found["results"] if r["kind"] != "episode"]
    # a negative reward is an ordinary argument, not an option
    proc = run_cli("feedback", found["trace_id"], "-0.5", "--cited", memory_ids[0], "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["advantage"] == -0.5 and [c["id"] for c in out["credited"]] == [memory_ids[0]]
    again = run_cli("feedback", found["trace_id"], "1")
    assert again.returncode == ExitCode.REFUSED and "already has the reward" in again.stderr
    bad = run_cli("feedback", found["trace_id"], "2")
    assert bad.returncode == ExitCode.USAGE
    proc = run_cli("consolidate", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["reconciles"] and report["model_failures"] == 0
    assert set(report["stages"]) == {
        "revise",
        "archive",
        "merge",
        "fuse",
        "summarise",
        "distil",
        "budget",
        "decay",
    }
    human = run_cli("consolidate")
    assert human.returncode == 0 and "summarise" in human.stdout and "found" in human.stdout
    target = tmp_path / "out.jsonl"
    proc = run_cli("export", str(target))
    assert proc.returncode == 0, proc.stderr
    assert "plaintext" in proc.stderr and proc.stdout == ""
    [record] = [json.loads(line) for line in target.read_text().splitlines()]
    assert record["trace_id"] == found["trace_id"] and record["reward"] == -0.5
    assert run_cli("export", str(target)).returncode == ExitCode.INVALID_INPUT
    piped = run_cli("export", "-")
    assert piped.returncode == 0 and json.loads(piped.stdout)["trace_id"] == found["trace_id"]
