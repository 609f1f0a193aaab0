"""`Memory.import_history` reads each documented shape, skips what it has, and reports bad records."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from import_support import T0, chatgpt_conversation, chatgpt_export, claude_export, write_json, write_zip
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.transfer.chats import detect, open_source
from veramem_desktop.core.transfer.records import Problem, Record

from veramem_desktop.memory import Memory


def _session(mem: Memory, session_id: str) -> list[tuple[str, str, str | None, str]]:
    """A session's episodes in turn order."""
    found = sorted(mem.episodes(session_id=session_id, limit=100), key=lambda e: e.turn_index)
    return [(e.role, e.content, e.source_name, e.event_time) for e in found]


def _at(seconds: float) -> str:
    from datetime import UTC, datetime

    return iso(datetime.fromtimestamp(seconds, UTC))


def test_chatgpt_export_follows_the_current_branch_with_roles_text_parts_times_and_titles(
    mem: Memory, tmp_path: Path
) -> None:
    path = write_json(tmp_path / "conversations.json", chatgpt_export())
    assert detect(path) == "chatgpt"
    report = mem.import_history(path)
    assert (report.format, report.stored, report.sessions, report.empty, report.bad) == (
        "chatgpt",
        6,
        2,
        1,
        0,
    )
    assert _session(mem, "chatgpt:c-1") == [
        ("user", "I moved to Lisbon in March 2023.", None, _at(T0)),  # the image part is skipped
        ("assistant", "Lisbon is a lovely city to live in.", None, _at(T0 + 60)),
        # null create_time: the time of the message it follows (it is reconciled after it)
        ("user", "My sister Ana lives in Porto.", None, _at(T0 + 60)),
    ]
    assert _session(mem, "chatgpt:c-2")[1] == (
        "tool",
        "Search results: coffee shops near you.",
        "browser",
        _at(T0 + 86_400 + 60),
    )
    first = mem.episodes(session_id="chatgpt:c-1", limit=1, newest_first=False)[0]
    assert first.metadata["title"] == "Moving house" and first.metadata["source"] == "chatgpt"
    assert report.memories["added"] >= 3
    assert all(
        "edited-away" not in e.content and "(hidden)" not in e.content for e in mem.episodes(limit=100)
    )


def test_a_chatgpt_export_zip_is_read_like_its_conversations_json(mem: Memory, tmp_path: Path) -> None:
    path = write_zip(tmp_path / "chatgpt-export.zip", chatgpt_export(), folder="export-2024/")
    assert detect(path) == "chatgpt"
    report = mem.import_history(path)
    assert (report.stored, report.sessions) == (6, 2)
    assert [c for _, c, _, _ in _session(mem, "chatgpt:c-2")][0] == "I drink my coffee black."
    unzipped = tmp_path / "unzipped"
    write_json(unzipped / "conversations.json", chatgpt_export())
    (unzipped / "chat.html").write_text("<html></html>")
    again = mem.import_history(unzipped)  # the export's folder, once unzipped: the same messages
    assert (again.format, again.stored, again.already_stored) == ("chatgpt", 0, 6)


def test_claude_export_reads_text_or_content_blocks_senders_and_times(mem: Memory, tmp_path: Path) -> None:
    path = write_zip(tmp_path / "claude.zip", claude_export())
    assert detect(path) == "claude"
    report = mem.import_history(path)
    assert (report.format, report.stored, report.sessions) == ("claude", 4, 2)
    assert _session(mem, "claude:k-1") == [
        ("user", "I am flying to Tokyo in May.", None, "2024-03-01T09:00:05.000000Z"),
        (
            "assistant",
            "Tokyo in May is pleasant.\n\nPack a light jacket.",
            None,
            "2024-03-01T09:00:09.000000Z",
        ),
        # no created_at: the time of the message it follows
        ("user", "My passport expires in 2030.", None, "2024-03-01T09:00:09.000000Z"),
    ]
    assert mem.episodes(session_id="claude:k-1", limit=1)[0].metadata["title"] == "Travel plans"


def test_own_json_and_json_lines_message_lists_keep_names_times_and_sessions(
    mem: Memory, tmp_path: Path
) -> None:
    listed = write_json(
        tmp_path / "chat.json",
        [
            {"role": "user", "content": "I keep bees.", "time": "2024-01-02T03:04:05Z"},
            {"role": "tool", "content": "weather: rain", "name": "forecast"},
        ],
    )
    lines = tmp_path / "more.jsonl"
    lines.write_text(
        "\n".join(
            json.dumps(m)
            for m in [
                {"role": "user", "content": "ok", "time": "2024-01-03T00:00:00Z"},
                {"role": "user", "content": "ok", "time": "2024-01-03T00:00:00Z"},  # said twice: kept twice
                {"role": "assistant", "content": "Bees need water nearby.", "session_id": "garden"},
            ]
        )
        + "\n"
    )
    assert detect(listed) == detect(lines) == "messages"
    assert mem.import_history(listed).stored == 2
    assert mem.import_history(lines).stored == 3
    assert _session(mem, "import:chat.json") == [
        ("user", "I keep bees.", None, "2024-01-02T03:04:05.000000Z"),
        ("tool", "weather: rain", "forecast", _session(mem, "import:chat.json")[1][3]),
    ]
    assert [c for _, c, _, _ in _session(mem, "import:more.jsonl")] == ["ok", "ok"]
    assert [c for _, c, _, _ in _session(mem, "garden")] == ["Bees need water nearby."]
    assert mem.import_history(lines).stored == 0


def test_a_folder_of_markdown_and_text_files_becomes_one_document_per_file(
    mem: Memory, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "garden.md").write_text("# Garden\n\nThe tomatoes go in the south bed.\n\nWater them at dawn.\n")
    (notes / "sub" / "books.txt").write_text("Reading list: Middlemarch, then Dune.\n")
    (notes / "image.png").write_bytes(b"\x89PNG")
    (notes / ".hidden.md").write_text("not imported")
    assert detect(notes) == "documents"
    report = mem.import_history(notes)
    assert (report.stored, report.sessions) == (2, 2)
    garden = mem.episodes(session_id="doc:garden.md", limit=10)
    assert [(e.role, e.source_name) for e in garden] == [("document", "garden.md")]
    assert "south bed" in garden[0].content
    assert mem.episodes(session_id="doc:sub/books.txt", limit=10)[0].source_name == "sub/books.txt"
    assert mem.import_history(notes).stored == 0


def test_bad_records_are_reported_with_their_position_and_the_rest_is_stored(
    mem: Memory, tmp_path: Path
) -> None:
    good = chatgpt_conversation("c-ok", "fine", [("user", "I like rye bread.")])
    strange = chatgpt_conversation("c-odd", "odd", [("user", "I like figs."), ("user", "I like plums.")])
    strange["mapping"]["c-odd-n1"]["message"]["author"]["role"] = "narrator"
    path = write_json(
        tmp_path / "conversations.json", [{"id": "c-none", "title": "no tree"}, "text", good, strange]
    )
    report = mem.import_history(path)
    assert report.stored == 2
    assert [p["position"] for p in report.problems] == [
        "conversation 1 (c-none)",
        "conversation 2",
        "conversation 4 (c-odd), message c-odd-m1",
    ]
    assert "narrator" in report.problems[2]["reason"]
    broken = tmp_path / "broken.jsonl"
    broken.write_text(
        '{"role": "user", "content": "I swim on Fridays."}\n{not json\n'
        '{"role": "user", "content": 5}\n{"role": "user", "content": "I own a kayak."}\n'
    )
    report = mem.import_history(broken)
    assert report.stored == 2 and [p["position"] for p in report.problems] == ["line 2", "line 3"]


def test_a_truncated_export_keeps_what_came_before_the_damage(mem: Memory, tmp_path: Path) -> None:
    text = json.dumps(chatgpt_export())
    path = tmp_path / "conversations.json"
    path.write_text(text[: text.index('"c-2-n1"') + 20])  # cut inside the second conversation
    report = mem.import_history(path)
    assert report.stored == 3 and report.bad == 1
    assert "not valid JSON" in report.problems[0]["reason"]


def test_since_keeps_only_messages_at_or_after_the_date(mem: Memory, tmp_path: Path) -> None:
    path = write_json(tmp_path / "conversations.json", chatgpt_export())
    report = mem.import_history(path, since="2023-11-15")
    assert (report.stored, report.before_since) == (3, 3)
    assert mem.reading.sessions() and {s["session_id"] for s in mem.reading.sessions()} == {"chatgpt:c-2"}


def test_dry_run_lists_what_would_be_stored_and_stores_nothing(mem: Memory, tmp_path: Path) -> None:
    path = write_json(tmp_path / "conversations.json", chatgpt_export())
    seen: list[Record] = []
    report = mem.import_history(path, dry_run=True, on_record=seen.append)
    assert report.stored == 6 and len(seen) == 6 and seen[0].content == "I moved to Lisbon in March 2023."
    assert mem.episodes(limit=10) == [] and mem.memories() == []


def test_reimport_adds_nothing_and_the_ledger_verifies(mem: Memory, tmp_path: Path) -> None:
    path = write_json(tmp_path / "conversations.json", chatgpt_export())
    first = mem.import_history(path, batch_size=2)
    counts = (len(mem.episodes(limit=100)), len(mem.memories(status=None, limit=500)))
    ledger_size = len(mem.reading.ledger_entries())
    again = mem.import_history(path, batch_size=5)
    assert (again.stored, again.already_stored) == (0, first.stored)
    assert (len(mem.episodes(limit=100)), len(mem.memories(status=None, limit=500))) == counts
    assert len(mem.reading.ledger_entries()) == ledger_size
    assert mem.verify().ok


def test_unknown_files_are_refused_with_a_clear_error(mem: Memory, tmp_path: Path) -> None:
    odd = tmp_path / "data.csv"
    odd.write_text("a,b\n1,2\n")
    with pytest.raises(InvalidInputError, match="Could not tell"):
        mem.import_history(odd)
    other = write_json(tmp_path / "list.json", [{"foo": 1}])
    with pytest.raises(InvalidInputError, match="neither"):
        mem.import_history(other)


def test_a_big_export_is_streamed_one_conversation_at_a_time(tmp_path: Path) -> None:
    """About 20 MB of conversations are read while Python holds well under 3 MB at any time."""
    path = tmp_path / "conversations.json"
    filler = "word " * 400
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        for i in range(2_000):
            conv = chatgpt_conversation(
                f"big-{i}", f"t{i}", [("user", f"{filler}{i}"), ("assistant", filler)] * 2
            )
            f.write(("," if i else "") + json.dumps(conv))
        f.write("]")
    assert path.stat().st_size > 15_000_000
    source = open_source(path)
    tracemalloc.start()
    try:
        n = sum(1 for item in source.items() if isinstance(item, Record))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert n == 8_000 and source.done() == source.total
    assert peak < 3_000_000, f"peak {peak:,} bytes"
    assert not any(isinstance(i, Problem) for i in open_source(path).items())


def test_a_batch_spanning_more_sessions_than_are_cached_still_skips_what_is_stored(
    mem: Memory, tmp_path: Path
) -> None:
    from veramem_desktop.services.importer import KEY_CACHE_SESSIONS

    n = KEY_CACHE_SESSIONS + 20
    path = tmp_path / "many.jsonl"
    path.write_text(
        "".join(
            json.dumps({"role": "user", "content": f"Note number {i}.", "session_id": f"s{i}"}) + "\n"
            for i in range(n)
        )
    )
    assert mem.import_history(path, batch_size=n // 2).stored == n
    again = mem.import_history(path, batch_size=n + 5)
    assert (again.stored, again.already_stored) == (0, n)


def test_records_outside_the_input_limits_are_reported_not_stored(mem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text(
        "".join(
            json.dumps(m) + "\n"
            for m in [
                {"role": "tool", "content": "fine", "name": "x" * 300},
                {"role": "user", "content": "the year is wrong", "time": "0099-01-01T00:00:00Z"},
                {"role": "user", "content": "a session id on two lines", "session_id": "a\nb"},
                {"role": "user", "content": "I am fine."},
            ]
        )
    )
    report = mem.import_history(path)
    assert report.stored == 1 and [p["position"] for p in report.problems] == ["line 1", "line 2", "line 3"]
    assert "200" in report.problems[0]["reason"] and "range" in report.problems[1]["reason"]
