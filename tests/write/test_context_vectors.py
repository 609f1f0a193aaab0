"""Each turn's context vector is built from the stored line vectors of the turn and its neighbours,
so the model embeds one text per message; an import stores exactly what an add stores."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import store_of
from veramem_desktop.core.write.ingest import context_vector

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

TURNS = [
    ("user", "I moved to Lisbon in March."),
    ("assistant", "Lisbon is lovely in spring."),
    ("user", "My sister Ana lives in Porto, three hours north."),
    ("assistant", "Close enough to visit."),
    ("user", "I keep bees on the roof of my flat."),
]


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.seen += list(texts)
        return super().embed(texts)


def _memory(home: Path, embedder: HashEmbedder) -> Memory:
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = False
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, embedder=embedder, config=config)
    return mem


def _vectors(mem: Memory, kind: str, session: str) -> list[np.ndarray]:
    rows = store_of(mem).query(
        "SELECT v.vector FROM episodes e JOIN embeddings v ON v.owner_id = e.id AND v.owner_kind = ? "
        "WHERE e.session_id = ? ORDER BY e.turn_index",
        (kind, session),
    )
    return [np.frombuffer(bytes(r[0]), dtype=np.float32) for r in rows]


def test_a_turns_context_vector_joins_its_neighbours_lines_and_is_rebuilt_when_the_next_turn_arrives(
    isolated_home: Path,
) -> None:
    embedder = CountingEmbedder()
    mem = _memory(isolated_home, embedder)
    try:
        mem.add([{"role": r, "content": t} for r, t in TURNS[:2]], session_id="s")
        embedder.seen.clear()
        mem.add({"role": TURNS[2][0], "content": TURNS[2][1]}, session_id="s")
        assert not [t for t in embedder.seen if "\n" in t]  # no joined context text is embedded
        assert "user: " + TURNS[2][1] in embedder.seen
        lines = _vectors(mem, "episode", "s")
        ctx = _vectors(mem, "episode_ctx", "s")
        texts = [t for _, t in TURNS[:3]]
        want = [
            context_vector(None, (lines[0], texts[0]), (lines[1], texts[1])),
            context_vector((lines[0], texts[0]), (lines[1], texts[1]), (lines[2], texts[2])),  # rebuilt
            context_vector((lines[1], texts[1]), (lines[2], texts[2]), None),
        ]
        for got, expected in zip(ctx, want, strict=True):
            assert np.allclose(got, expected, atol=1e-6)
        assert float(ctx[1] @ lines[2]) > float(lines[1] @ lines[2])  # the rebuilt one leans to the new turn
    finally:
        mem.close()


def test_a_longer_message_weighs_more_in_its_neighbours_context_vector() -> None:
    a, b = np.eye(2, dtype=np.float32)
    short = context_vector((a, "hi"), (b, "x" * 100), None)
    long = context_vector((a, "hi " * 100), (b, "x" * 100), None)
    assert float(long @ a) > float(short @ a)
    assert np.isclose(float(np.linalg.norm(long)), 1.0)


def test_an_imported_conversation_is_indexed_exactly_as_the_same_conversation_added(
    isolated_home: Path, tmp_path: Path
) -> None:
    export = tmp_path / "chat.json"
    export.write_text(
        json.dumps(
            [
                {"role": r, "content": t, "session_id": "s", "time": f"2024-01-0{i + 1}T10:00:00Z"}
                for i, (r, t) in enumerate(TURNS)
            ]
        ),
        encoding="utf-8",
    )
    imported = _memory(isolated_home / "a", HashEmbedder())
    added = _memory(isolated_home / "b", HashEmbedder())
    try:
        assert imported.import_history(export, batch_size=2).stored == len(
            TURNS
        )  # sessions cut across batches
        for i, (r, t) in enumerate(TURNS):
            added.add({"role": r, "content": t, "time": f"2024-01-0{i + 1}T10:00:00Z"}, session_id="s")
        for kind in ("episode", "episode_ctx"):
            got, want = _vectors(imported, kind, "s"), _vectors(added, kind, "s")
            assert len(got) == len(want) == len(TURNS)
            assert all(np.allclose(g, w, atol=1e-6) for g, w in zip(got, want, strict=True)), kind
    finally:
        imported.close()
        added.close()
