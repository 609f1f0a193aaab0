"""The bench's LoCoMo → ChatGPT-export conversion is a valid export that imports every turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fixtures import run_cli
from veramem_desktop.core.transfer.chats import detect

from veramem_desktop.bench.import_section import locomo_as_chatgpt
from veramem_desktop.memory import Memory

SAMPLE = {
    "sample_id": "conv-tiny",
    "conversation": {
        "speaker_a": "Maya",
        "speaker_b": "Tom",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {
                "speaker": "Maya",
                "dia_id": "D1:1",
                "text": "I adopted a rescue greyhound called Pixel last week!",
            },
            {"speaker": "Tom", "dia_id": "D1:2", "text": "Lovely. What colour is Pixel?"},
        ],
        "session_2_date_time": "10:05 am on 20 June, 2023",
        "session_2": [{"speaker": "Tom", "dia_id": "D2:1", "text": "I started learning the cello in June."}],
    },
    "qa": [],
}


def test_locomo_sessions_become_chatgpt_conversations_that_import_turn_for_turn(
    mem: Memory, tmp_path: Path
) -> None:
    convs = locomo_as_chatgpt([SAMPLE])
    assert [c["title"] for c in convs] == ["conv-tiny session 1", "conv-tiny session 2"]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(convs))
    assert detect(path) == "chatgpt"
    report = mem.import_history(path)
    assert (report.stored, report.sessions, report.bad) == (3, 2, 0)
    first = sorted(mem.episodes(session_id="chatgpt:conv-tiny-s1", limit=5), key=lambda e: e.turn_index)
    assert [(e.role, e.event_time) for e in first] == [
        ("user", "2023-05-08T13:56:00.000000Z"),
        ("assistant", "2023-05-08T13:57:00.000000Z"),
    ]


@pytest.mark.slow
def test_bench_import_section_reports_rate_memory_and_an_idempotent_second_run(
    isolated_home: Path, tmp_path: Path
) -> None:
    locomo = tmp_path / "tiny.json"
    locomo.write_text(json.dumps([SAMPLE]))
    proc = run_cli("bench", "--only", "import", "--locomo", str(locomo), "--json", timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout)
    section = data["import"]
    assert data["import_per_s"] == section["import_per_s"] > 0
    assert (section["messages"], section["conversations"], section["second_run_stored"]) == (3, 2, 0)
    assert section["llm"] == "rule-based" and 0 < section["embedding_s"] <= section["seconds"]
    assert 0 < section["embedding_cpu_s"] <= section["cpu_s"]
    assert section["embedding_texts_per_cpu_s"] > 0
    # one line per message, and the rest are the memories' texts
    assert section["memory_texts_embedded"] == section["texts_embedded"] - section["messages"] > 0
    assert 20 < section["rss_mb"] < 8_000
    assert not list(isolated_home.glob("**/veramem.db")), "the bench wrote into the user's home"
