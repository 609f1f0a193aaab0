"""Import with a model, against a real HTTP server on 127.0.0.1 speaking the Ollama API: several
messages per extraction call, a bounded number of calls at once, and a failed call retried one
message at a time so that no message loses its memories to another's failure."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from import_support import write_json
from support.fake_embedder import HashEmbedder
from support.fake_ollama import (
    FakeOllama,
    FromRequest,
    HttpStatus,
    JsonContent,
    RawContent,
    Reply,
    running_fake_ollama,
)
from support.fixtures import PASSPHRASE

from veramem_desktop.bulk_extract import AT_ONCE, PER_CALL
from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

FACTS = [
    "I keep bees in the garden.",
    "My sister Ana lives in Porto.",
    "I play the cello on Sundays.",
    "I drink my coffee black.",
    "Our dog is called Rex.",
    "I work as a nurse in Leeds.",
    "My favourite author is Ursula Le Guin.",
    "I am allergic to peanuts.",
    "I grew up near the sea.",
    "My car is a blue hatchback.",
    "I run five kilometres every morning.",
    "I speak Portuguese at home.",
    "My daughter studies chemistry.",
    "I collect old maps of Europe.",
    "I was born in March 1985.",
    "My flat has a small balcony.",
]


def _new_rows(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The NEW messages an extraction prompt offers (one JSON row per line between its markers)."""
    prompt = request["messages"][-1]["content"]
    block = prompt.split("<<<DATA NEW\n", 1)[1].split("\nDATA NEW>>>", 1)[0]
    return [json.loads(line) for line in block.splitlines()]


class ScriptedModel:
    """Answers every chat request: an extraction with one memory per offered message ("Model: …",
    quoting it whole), a reconciliation with ADD. Counts the calls in flight at once; a call of
    several messages holding "POISON" fails with HTTP 500, and that message alone gets junk."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most_at_once = 0
        self.extract_sizes: list[int] = []

    def __call__(self, request: dict[str, Any]) -> Reply:
        if "memories" not in request["format"]["properties"]:
            return JsonContent({"op": "ADD", "target_id": None, "text": None, "reason": "scripted"})
        rows = _new_rows(request)
        with self.lock:
            self.extract_sizes.append(len(rows))
            self.in_flight += 1
            self.most_at_once = max(self.most_at_once, self.in_flight)
        try:
            time.sleep(self.delay)
        finally:
            with self.lock:
                self.in_flight -= 1
        poisoned = any("POISON" in r["text"] for r in rows)
        if poisoned and len(rows) > 1:
            return HttpStatus(500, "the model runner crashed")
        if poisoned:
            return RawContent("this is not JSON")
        return JsonContent(
            {
                "memories": [
                    {
                        "message_id": r["id"],
                        "quote": r["text"],
                        "text": f"Model: {r['text']}",
                        "kind": "fact",
                        "subject": None,
                        "predicate": None,
                        "value": None,
                        "importance": 0.5,
                    }
                    for r in rows
                ]
            }
        )


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with running_fake_ollama() as server:
        yield server


def _memory(home: Path, ollama: FakeOllama, model: ScriptedModel) -> Memory:
    config = Config()
    config.llm.backend = "ollama"
    config.llm.host = ollama.url
    config.llm.timeout_s = 5.0
    config.llm.retries = 0
    config.organise.linking = False
    ollama.script(*[FromRequest(model)] * 400)
    mem, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    return mem


def test_a_model_import_extracts_several_messages_per_call_with_a_bounded_number_of_calls_at_once(
    isolated_home: Path, tmp_path: Path, ollama: FakeOllama
) -> None:
    model = ScriptedModel(delay=0.3)
    mem = _memory(isolated_home, ollama, model)
    try:
        texts = FACTS + [f"Also, {f[0].lower()}{f[1:]}" for f in FACTS]  # 32 messages of one conversation
        path = write_json(tmp_path / "chat.json", [{"role": "user", "content": t} for t in texts])
        report = mem.import_history(path, batch_size=32)
        assert report.stored == 32
        assert model.extract_sizes == [PER_CALL] * (32 // PER_CALL)  # several messages per call, none twice
        assert model.most_at_once == AT_ONCE  # calls overlap, and never more than the bound
        derived = {m.text for m in mem.memories(limit=100)}
        assert {f"Model: {t}" for t in texts} <= derived
        assert mem.verify().ok
    finally:
        mem.close()


def test_a_failed_extraction_call_is_retried_one_message_at_a_time_and_loses_no_message(
    isolated_home: Path, tmp_path: Path, ollama: FakeOllama
) -> None:
    model = ScriptedModel()
    mem = _memory(isolated_home, ollama, model)
    try:
        texts = FACTS[:PER_CALL]
        texts[3] = "POISON: I drink my coffee black."
        path = write_json(tmp_path / "chat.json", [{"role": "user", "content": t} for t in texts])
        report = mem.import_history(path, batch_size=PER_CALL)
        assert report.stored == PER_CALL and len(mem.episodes(limit=50)) == PER_CALL
        assert model.extract_sizes == [PER_CALL] + [1] * PER_CALL  # the whole call, then each message alone
        derived = {m.text for m in mem.memories(limit=100)}
        assert {f"Model: {t}" for t in texts if "POISON" not in t} <= derived  # the others keep the model's
        poisoned = [m for m in mem.memories(limit=100) if "coffee" in m.text]
        assert poisoned and not poisoned[0].text.startswith("Model:")  # the rule-based extractor stood in
        assert any("each was extracted on its own" in n for n in report.notices)
        assert mem.search("coffee black", k=5).results  # and its episode is searchable
        assert mem.verify().ok
    finally:
        mem.close()


class GroupingModel(ScriptedModel):
    """A scripted model that also records which messages each extraction call was asked about."""

    def __init__(self) -> None:
        super().__init__()
        self.groups: list[tuple[str, ...]] = []

    def __call__(self, request: dict[str, Any]) -> Reply:
        if "memories" in request["format"]["properties"]:
            with self.lock:
                self.groups.append(tuple(r["text"] for r in _new_rows(request)))
        return super().__call__(request)


def test_a_model_is_asked_about_the_same_groups_of_messages_whatever_the_batch(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    """Extraction calls are cut from the messages in time order, by session and PER_CALL, never at a
    batch's edge: the same calls (and so the same memories, from a model that answers alike) at any batch."""
    convs = []
    for c in range(3):
        turns = [
            {"role": "user", "content": f"{FACTS[(c * 5 + i) % len(FACTS)]} (note {c}.{i})"}
            for i in range(11)
        ]
        convs.append((f"s{c}", turns))
    lines = []
    for c, (session, turns) in enumerate(convs):  # runs of 6, then of 5, of each session, interleaved
        for i, msg in enumerate(turns):
            day = 1 + c + (3 if i >= 6 else 0)
            lines.append({**msg, "session_id": session, "time": f"2024-03-{day:02d}T10:{i:02d}:00Z"})
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    found = {}
    model = GroupingModel()  # one model: the fake server answers every run from the same script
    for batch in (1, 5, 16, 128):
        model.groups = []
        mem = _memory(tmp_path / f"b{batch}", ollama, model)
        try:
            assert mem.import_history(path, batch_size=batch).stored == 33
            found[batch] = (sorted(model.groups), sorted((m.text, m.status) for m in mem.memories(limit=100)))
        finally:
            mem.close()
    assert found[1] == found[5] == found[16] == found[128]
