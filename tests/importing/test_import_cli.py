"""`veramem import` and `veramem export memories|traces` as a person runs them."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from import_support import chatgpt_export, write_zip
from support.fixtures import init_store, run_cli


@pytest.mark.slow
@pytest.mark.e2e
def test_import_a_chatgpt_zip_then_export_memories_and_import_them_elsewhere(
    isolated_home: Path, tmp_path: Path
) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    export = write_zip(tmp_path / "chatgpt.zip", chatgpt_export())

    dry = run_cli("import", str(export), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "chatgpt:c-1" in dry.stdout and "I moved to Lisbon in March 2023." in dry.stdout
    assert "Would store 6 message(s)" in dry.stdout

    first = run_cli("import", str(export), "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert (report["format"], report["stored"], report["sessions"]) == ("chatgpt", 6, 2)
    assert "Importing" not in first.stderr  # no progress bar off a terminal or with --json
    again = json.loads(run_cli("import", str(export), "--json").stdout)
    assert (again["stored"], again["already_stored"]) == (0, 6)

    out = tmp_path / "memories.jsonl"
    done = run_cli("export", "memories", str(out))
    assert done.returncode == 0 and "PLAINTEXT" in done.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    header = json.loads(out.read_text().splitlines()[0])
    assert header["type"] == "veramem.memories" and header["ids"] == "kept"
    markdown = tmp_path / "memories.md"
    assert run_cli("export", "memories", str(markdown), "--format", "markdown").returncode == 0
    assert "> I moved to Lisbon in March 2023." in markdown.read_text()

    traces, old_form = tmp_path / "traces.jsonl", tmp_path / "old.jsonl"
    assert run_cli("search", "Lisbon").returncode == 0
    assert run_cli("export", "traces", str(traces)).returncode == 0
    assert run_cli("export", str(old_form)).returncode == 0  # the older form still writes traces
    assert traces.read_text().count("\n") == old_form.read_text().count("\n") == 1

    elsewhere = {"VERAMEM_HOME": str(tmp_path / "elsewhere")}
    assert run_cli("init", env=elsewhere).returncode == 0
    moved = run_cli("import", str(out), "--json", env=elsewhere)
    assert moved.returncode == 0, moved.stderr
    data = json.loads(moved.stdout)
    assert data["format"] == "memories" and data["bad"] == 0 and data["memories"]["added"] >= 3
    assert run_cli("verify", env=elsewhere).returncode == 0


def test_import_of_an_unreadable_file_says_why_and_exits_9(isolated_home: Path, tmp_path: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    bad = tmp_path / "notes.csv"
    bad.write_text("a,b\n")
    proc = run_cli("import", str(bad))
    assert proc.returncode == 9 and proc.stderr.startswith("error: ") and "Could not tell" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.e2e
def test_on_a_terminal_import_shows_a_progress_bar_with_its_counts(
    isolated_home: Path, tmp_path: Path
) -> None:
    import os
    import subprocess

    from import_support import chatgpt_conversation, write_json
    from support.fixtures import VENV_BIN

    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    convs = [chatgpt_conversation(f"c{i}", "t", [("user", f"I visited town number {i}.")]) for i in range(12)]
    export = write_json(tmp_path / "conversations.json", convs)
    master, slave = os.openpty()
    try:
        proc = subprocess.run(
            [str(VENV_BIN / "veramem"), "import", str(export), "--batch", "4"],
            stdout=subprocess.PIPE,
            stderr=slave,
            timeout=300,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0
    assert "12/12 messages" in shown and "12 stored" in shown  # messages counted up front, not a byte share
    assert "Deriving memories" in shown  # the second step's task
    assert b"Stored 12 message(s)" in proc.stdout
