"""One import, one result: the memories an import derives do not depend on its batch size, on a kill
and a resume, or on the order the export lists its conversations in; they are reconciled in the
order the messages were written. Real SQLCipher store, real ONNX embedder, rule-based backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from import_support import T0, chatgpt_conversation, write_json
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import store_of
from veramem_desktop.core.storage import import_queue

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

DAY = 86_400.0
HOUR = 3_600.0

# Five conversations whose turns interleave in time: (id, first turn's offset in days, user turns).
# Each user turn gets an assistant reply an hour later; turn k of a conversation is k * 0.7 days on.
CONVERSATIONS: list[tuple[str, float, list[str]]] = [
    (
        "plans",
        0.0,
        [
            "I rent a small studio in Utrecht near the station.",
            "My manager at Korvel Labs is called Priya.",
            "The text editor I use every day is Neovim.",
            "Can you suggest a weekend hike?",
        ],
    ),
    (
        "pets",
        0.3,
        [
            "We adopted a grey rabbit called Pip.",
            "I work at Korvel Labs as a data engineer.",
            "My brother Teo lives in Ghent.",
        ],
    ),
    (
        "move",
        1.1,
        [
            "I rent a small studio in Utrecht.",
            "My favourite editor is Helix now.",
            "Sorry, I meant Zed.",
            "I no longer have the rabbit.",
        ],
    ),
    (
        "job",
        1.9,
        [
            "I work at Ostra Energy as a platform engineer.",
            "My brother Teo moved to Leuven.",
            "My manager at Ostra Energy is called Joris.",
        ],
    ),
    (
        "later",
        2.4,
        [
            "I rent a flat in Rotterdam now.",
            "My favourite editor is Zed.",
            "I work at Ostra Energy as a platform engineer.",
        ],
    ),
]


def _export(path: Path, order: list[int] | None = None) -> Path:
    convs = []
    for cid, offset, turns in CONVERSATIONS:
        pairs: list[tuple[str, str]] = []
        for text in turns:
            pairs += [("user", text), ("assistant", "Thanks, noted.")]
        conv = chatgpt_conversation(cid, f"chat {cid}", pairs, start=T0 + offset * DAY)
        for i in range(len(pairs)):
            msg = conv["mapping"][f"{cid}-n{i}"]["message"]
            msg["create_time"] = T0 + offset * DAY + (i // 2) * 0.7 * DAY + (i % 2) * HOUR
        convs.append(conv)
    if order is not None:
        convs = [convs[i] for i in order]
    return write_json(path, convs)


def _new(home: Path) -> Memory:
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = False
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    return mem


def _store(mem: Memory) -> list[tuple[Any, ...]]:
    """Every memory: its text, status, version, key, validity, and the text of the one it supersedes."""
    rows = store_of(mem).query(
        "SELECT m.text, m.status, m.version, m.subject, m.predicate, m.value, m.valid_from, m.valid_to, "
        "m.authority, (SELECT p.text FROM memory_items p WHERE p.id = m.supersedes) FROM memory_items m"
    )
    return sorted(tuple(r) for r in rows)


def _imported(home: Path, export: Path, batch: int) -> list[tuple[Any, ...]]:
    mem = _new(home)
    try:
        report = mem.import_history(export, batch_size=batch)
        assert report.stored == 34
        return _store(mem)
    finally:
        mem.close()


@pytest.mark.slow
def test_an_import_derives_the_same_memories_at_batch_1_16_and_128(tmp_path: Path) -> None:
    export = _export(tmp_path / "export" / "conversations.json")
    stores = {b: _imported(tmp_path / f"b{b}", export, b) for b in (1, 16, 128)}
    assert stores[1] == stores[16] == stores[128]
    # and the history was reconciled: some memories were replaced by later versions
    assert any(row[1] == "superseded" for row in stores[1])
    assert any(row[2] > 1 for row in stores[1])


@pytest.mark.slow
def test_conversations_listed_in_any_order_are_reconciled_in_the_order_they_were_written(
    tmp_path: Path,
) -> None:
    forward = _export(tmp_path / "a" / "conversations.json")
    backward = _export(tmp_path / "b" / "conversations.json", order=[4, 3, 2, 1, 0])
    first = _imported(tmp_path / "fwd", forward, 16)
    second = _imported(tmp_path / "bwd", backward, 16)
    assert first == second
    current = {row[0] for row in first if row[1] == "active"}
    # the last word on the editor and the employer is the newest message's, though listed first
    assert not any("Helix" in text for text in current)
    assert any("works at Ostra" in text for text in current)
    assert not any("works at Korvel" in text for text in current)


def _waiting(mem: Memory) -> bool:
    return bool(store_of(mem).query("SELECT key FROM meta WHERE key LIKE 'import_pending:%'"))


class _Killed(BaseException):
    """Stands for the process being killed: nothing after it runs, the open transaction is rolled back."""


def _kill_on(monkeypatch: pytest.MonkeyPatch, name: str, call: int) -> None:
    real = getattr(import_queue, name)
    calls = [0]

    def dying(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == call:
            raise _Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(import_queue, name, dying)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("step", "call"),
    [("note_stored", 3), ("advance", 11), ("advance", 20)],
    ids=["while storing", "while deriving, mid batch", "while deriving, later"],
)
def test_an_import_stopped_midway_and_run_again_ends_with_the_same_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, call: int
) -> None:
    export = _export(tmp_path / "export" / "conversations.json")
    whole = _imported(tmp_path / "whole", export, 4)
    mem = _new(tmp_path / "killed")
    try:
        with monkeypatch.context() as patch:
            _kill_on(patch, step, call)
            with pytest.raises(_Killed):
                mem.import_history(export, batch_size=4)
        assert _waiting(mem)  # something was left waiting
        again = mem.import_history(export, batch_size=4)
        assert again.already_stored > 0
        assert _store(mem) == whole
        assert not _waiting(mem)
        assert mem.verify().ok
    finally:
        mem.close()


_SAID = [
    "I live in {}.",
    "We moved to {} last month.",
    "My favourite editor is {}.",
    "I work at {} now.",
    "Sorry, I meant {}.",
    "I no longer live in {}.",
    "My sister moved to {}.",
]
_VALUES = ["Lyon", "Ghent", "Vim", "Zed", "Acme", "Tessera", "Porto"]


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    history=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 40), st.sampled_from(_SAID), st.sampled_from(_VALUES)),
        min_size=2,
        max_size=14,
    ),
    batches=st.tuples(st.integers(1, 5), st.integers(6, 64)),
)
def test_any_history_gives_one_store_whatever_the_batch(
    tmp_path_factory: pytest.TempPathFactory,
    history: list[tuple[int, int, str, str]],
    batches: tuple[int, int],
) -> None:
    """Random conversations (up to four, turns at random hours) give the same memories at any two batch
    sizes. The fast hash embedder: what is compared is the order of reconciliation, not the model."""
    root = tmp_path_factory.mktemp("any")
    convs = []
    for c in range(4):
        turns = [(hour, said.format(value)) for conv, hour, said, value in history if conv == c]
        if not turns:
            continue
        conv = chatgpt_conversation(f"h{c}", f"chat {c}", [("user", t) for _, t in turns], start=T0)
        for i, (hour, _) in enumerate(turns):
            conv["mapping"][f"h{c}-n{i}"]["message"]["create_time"] = T0 + hour * HOUR + c + i * 0.001
        convs.append(conv)
    export = write_json(root / "conversations.json", convs)
    stores = []
    for b in batches:
        config = Config()
        config.llm.backend = "rule-based"
        config.organise.linking = False
        mem, _ = Memory.create(
            root / f"b{b}", passphrase=PASSPHRASE, use_keyring=False, config=config, embedder=HashEmbedder()
        )
        try:
            mem.import_history(export, batch_size=b)
            stores.append(_store(mem))
        finally:
            mem.close()
    assert stores[0] == stores[1]
