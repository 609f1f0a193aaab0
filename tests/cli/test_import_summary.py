"""What `veramem import` says when it is done: one short table, details only when asked for, and a dry
run's JSON that says what it would store (the real command, a real store, the rule-based extractor)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.fixtures import init_store, run_cli

NO_TERMINAL = ""


@pytest.fixture
def home(isolated_home: Path) -> Path:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    return isolated_home


def _messages(tmp_path: Path) -> Path:
    lines = [{"role": "user", "content": f"I keep {i} beehives on the roof of my flat."} for i in range(6)]
    lines.append({"role": "assistant", "content": "Happy to help! Would you like some more tips?"})
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json at all\n")
    return path


def test_an_import_ends_with_one_short_table_and_no_background_noise(home: Path, tmp_path: Path) -> None:
    proc = run_cli("import", str(_messages(tmp_path)), input=NO_TERMINAL)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Stored 7 message(s) from ")
    assert re.fullmatch(r"  skipped +1: 0 already there · 0 before --since · 0 forgotten · 1 bad", lines[1])
    assert re.fullmatch(r"  memories +\d+ added · \d+ updated · \d+ retracted", lines[2])
    assert re.fullmatch(r"  time +[\d.]+ s · [\d.]+ messages/s over the whole run", lines[3])
    assert len(lines) == 4
    assert "Linking continues" not in proc.stdout + proc.stderr
    assert "gave no memory" not in proc.stderr  # a detail: --verbose or the JSON
    assert "skipped line 8" in proc.stderr  # an unreadable record is a problem, always named


def test_verbose_and_json_carry_what_gave_no_memory(home: Path, tmp_path: Path) -> None:
    path = _messages(tmp_path)
    verbose = run_cli("import", str(path), "--verbose", input=NO_TERMINAL)
    assert verbose.returncode == 0 and "gave no memory" in verbose.stderr
    other = tmp_path / "again.jsonl"
    other.write_text(json.dumps({"role": "assistant", "content": "Glad I could help! Anything else?"}) + "\n")
    data = json.loads(run_cli("import", str(other), "--json", input=NO_TERMINAL).stdout)
    assert any("gave no memory" in n for n in data["notices"])


def test_markdown_headings_are_not_reported_as_sentences(home: Path, tmp_path: Path) -> None:
    notes = tmp_path / "goals.md"
    notes.write_text("# Goals 2025\n\nI want to run a marathon in May.\n\n## Health\n\nOk.\n")
    proc = run_cli("import", str(notes), "--json", input=NO_TERMINAL)
    assert proc.returncode == 0, proc.stderr
    notices = " ".join(json.loads(proc.stdout)["notices"])
    assert "Goals 2025" not in notices and "Health" not in notices
    assert "Ok." in notices  # a real sentence that says nothing is still accounted for


def test_a_dry_run_in_json_says_would_store_not_stored(home: Path, tmp_path: Path) -> None:
    proc = run_cli("import", str(_messages(tmp_path)), "--dry-run", "--json", input=NO_TERMINAL)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert "stored" not in data and data["would_store"] == 7
    assert len(data["preview"]) == 7 and data["preview"][0]["content"].startswith("I keep 0 beehives")
    listed = run_cli("episodes", "--json", input=NO_TERMINAL)
    assert json.loads(listed.stdout) == [] or "I keep" not in listed.stdout  # nothing was stored
