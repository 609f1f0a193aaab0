"""A message that makes derivation fail costs only its own memories: every episode is kept."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from import_support import write_json
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import store_of
from veramem_desktop.core.llm import DEFAULT_CONTEXT_TOKENS, Capabilities, Reply
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

from veramem_desktop.bulk_extract import PER_CALL
from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


class TrippingLLM(RuleBasedLLM):
    """The rule-based backend, except that any extraction including a "TRIP" message raises."""

    def extract(self, messages: Sequence[Any], context: Sequence[Any] = ()) -> Reply[list[Any]]:
        if any("TRIP" in m.content for m in messages):
            raise RuntimeError("an extractor bug")
        return super().extract(messages, context)


def test_a_batch_whose_derivation_fails_keeps_every_episode_and_derives_the_other_messages(
    isolated_home: Path, tmp_path: Path
) -> None:
    config = Config()
    config.organise.linking = False
    mem, _ = Memory.create(
        isolated_home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        embedder=HashEmbedder(),
        config=config,
        llm=TrippingLLM(),
    )
    try:
        lines = [
            "I keep bees.",
            "My sister lives in Porto.",
            "TRIP over this one.",
            "I play the cello.",
            "I drink my coffee black.",
            "Our dog is called Rex.",
        ]
        path = write_json(tmp_path / "chat.json", [{"role": "user", "content": t} for t in lines])
        report = mem.import_history(path, batch_size=6)
        assert report.stored == 6 and len(mem.episodes(limit=10)) == 6
        tripped = next(e for e in mem.episodes(limit=10) if "TRIP" in e.content)
        assert [n for n in report.notices if tripped.id in n] and "RuntimeError" in report.notices[0]
        derived = {
            ev.episode.content for m in mem.memories(limit=50) for ev in mem.reading.detail(m.id).evidence
        }
        assert derived == set(lines) - {"TRIP over this one."}
        assert mem.verify().ok
    finally:
        mem.close()


class RecordingEmbedder(HashEmbedder):
    """Notes, for each text embedded, whether a write transaction was open at the time."""

    def __init__(self) -> None:
        super().__init__()
        self.store: Any = None
        self.inside: list[str] = []

    def embed(self, texts: Sequence[str]) -> Any:
        if self.store is not None and self.store._depth:
            self.inside += list(texts)
        return super().embed(texts)


def test_episode_vectors_are_computed_before_the_write_transaction_opens(
    isolated_home: Path, tmp_path: Path
) -> None:
    config = Config()
    config.organise.linking = False
    embedder = RecordingEmbedder()
    mem, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=embedder, config=config
    )
    try:
        embedder.store = store_of(mem)
        mem.add({"role": "user", "content": "We start from here."}, session_id="import:chat.json")
        embedder.inside.clear()
        lines = ["I keep bees.", "My sister lives in Porto.", "I play the cello.", "I drink my coffee black."]
        path = write_json(tmp_path / "chat.json", [{"role": "user", "content": t} for t in lines])
        assert mem.import_history(path, batch_size=2).stored == 4
        assert embedder.inside, "the memories' vectors are embedded inside (by Writer.derive)"
        assert not [t for t in embedder.inside if t.startswith("user: ")]  # no episode line or context
    finally:
        mem.close()


class CountingModel(RuleBasedLLM):
    """Stands in for a model backend (not rule-based); counts the messages of each extraction call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities("scripted model", batch_extraction=True, context_tokens=DEFAULT_CONTEXT_TOKENS)

    def extract(self, messages: Sequence[Any], context: Sequence[Any] = ()) -> Reply[list[Any]]:
        self.calls.append(len(messages))
        return super().extract(messages, context)


def test_with_a_model_each_extraction_call_gets_a_small_batch(isolated_home: Path, tmp_path: Path) -> None:
    config = Config()
    config.organise.linking = False
    model = CountingModel()
    mem, _ = Memory.create(
        isolated_home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        embedder=HashEmbedder(),
        config=config,
        llm=model,
    )
    try:
        path = write_json(
            tmp_path / "chat.json",
            [{"role": "user", "content": f"Fact number {i} is true."} for i in range(40)],
        )
        assert mem.import_history(path).stored == 40
        assert model.calls == [PER_CALL] * (40 // PER_CALL)  # 16 messages per transaction, 8 per call
    finally:
        mem.close()
