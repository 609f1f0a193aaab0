"""`veramem export all`: every message and memory in one file, read back by `veramem import` (the real
command, real store files, the real embedding model)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from import_support import chatgpt_conversation, write_json
from support.fixtures import init_store, run_cli

NO_TERMINAL = ""


def _records(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    episodes = [x for x in lines if x["type"] == "episode"]
    memories = [x for x in lines if x["type"] == "memory"]
    return lines[0], episodes, memories


def _episode_key(e: dict[str, Any]) -> tuple[Any, ...]:
    return (e["id"], e["content"], e["role"], e["session_id"], e["event_time"], e["sha256"])


def _memory_key(m: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(
        (v["id"], v["text"], v["status"], v["kind"], v["valid_from"], v["valid_to"]) for v in m["versions"]
    )


@pytest.mark.e2e
def test_export_all_into_an_empty_store_gives_the_same_messages_and_memories(
    isolated_home: Path, tmp_path: Path
) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    convs = [
        chatgpt_conversation(
            "c1",
            "moving",
            [
                ("user", "I live in Porto and work as a nurse."),
                ("assistant", "Happy to help! Anything else?"),  # gives no memory: quoted by none
                ("user", "Actually I moved to Lisbon last month."),
            ],
        ),
        chatgpt_conversation("c2", "food", [("user", "I am allergic to peanuts."), ("user", "Thanks!")]),
    ]
    assert run_cli("import", str(write_json(tmp_path / "conversations.json", convs))).returncode == 0

    partial, full = tmp_path / "memories.jsonl", tmp_path / "all.jsonl"
    assert run_cli("export", "memories", str(partial), input=NO_TERMINAL).returncode == 0
    done = run_cli("export", "all", str(full), "--json", input=NO_TERMINAL)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(full.stat().st_mode) == 0o600 and "PLAINTEXT" in done.stderr
    header, episodes, memories = _records(full)
    assert header["episodes"] == "all" and json.loads(done.stdout)["episodes"] == len(episodes) == 5
    assert len(_records(partial)[1]) < len(episodes)  # the partial one holds only quoted messages
    assert memories

    elsewhere = {"VERAMEM_HOME": str(tmp_path / "elsewhere")}
    assert run_cli("init", input=NO_TERMINAL, env=elsewhere).returncode == 0
    moved = run_cli("import", str(full), "--json", input=NO_TERMINAL, env=elsewhere)
    assert moved.returncode == 0, moved.stderr
    assert json.loads(moved.stdout)["bad"] == 0
    again = tmp_path / "again.jsonl"
    assert run_cli("export", "all", str(again), input=NO_TERMINAL, env=elsewhere).returncode == 0
    _, episodes2, memories2 = _records(again)
    assert sorted(map(_episode_key, episodes2)) == sorted(map(_episode_key, episodes))
    assert sorted(map(_memory_key, memories2)) == sorted(map(_memory_key, memories))
    assert run_cli("verify", input=NO_TERMINAL, env=elsewhere).returncode == 0

    # into the store it came from, it adds nothing
    same = json.loads(run_cli("import", str(full), "--json", input=NO_TERMINAL).stdout)
    assert same["stored"] == 0 and same["memories"]["added"] == 0


def test_export_memories_says_it_holds_only_quoted_messages() -> None:
    proc = run_cli("export", "memories", "--help")
    assert "ONLY the messages" in proc.stdout and "export all" in proc.stdout
    assert "export all" in run_cli("export", "--help").stdout
