"""Episodes whose derivation failed are queued as rows, one per episode, in an insert of their own.

The queue was one JSON list in ``meta``, read and written back in two transactions, so two processes
adding at once could each write back a list without the other's ids, and ``rederive_pending`` wrote
back the list it had read, dropping ids queued while it derived.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import store_of
from veramem_desktop.core.storage import pending_rows

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

from .pending_adder import FailingLLM

TESTS = Path(__file__).resolve().parents[1]
PROCESSES = 4
ADDS_EACH = 12


def _create(home: Path, llm: object) -> Memory:
    config = Config()
    config.organise.linking = False
    mem, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config, llm=llm
    )
    return mem


@pytest.mark.slow
def test_concurrent_adds_from_four_processes_lose_no_pending_id(isolated_home: Path) -> None:
    _create(isolated_home, FailingLLM()).close()
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "admission.pending_adder", str(isolated_home), str(ADDS_EACH), f"p{n}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for n in range(PROCESSES)
    ]
    printed: set[str] = set()
    for child in children:
        out, err = child.communicate(timeout=600)
        assert child.returncode == 0, err[-2000:]
        printed |= {line for line in out.split() if line.startswith("ep_")}
    assert len(printed) == PROCESSES * ADDS_EACH
    mem = Memory(isolated_home, embedder=HashEmbedder(), llm=FailingLLM())
    try:
        assert set(pending_rows.queued(store_of(mem))) == printed
    finally:
        mem.close()


def test_rederive_deletes_only_the_rows_it_finished(isolated_home: Path) -> None:
    mem = _create(isolated_home, FailingLLM())
    try:
        first = mem.add("I keep bees on the roof.").episodes[0].id
        store = store_of(mem)
        assert pending_rows.queued(store) == [first]
        # derivation still fails: the row stays, and one queued meanwhile stays beside it
        assert mem.writes.rederive_pending() == {"tried": 1, "derived": 0, "still_pending": 1}
        second = mem.add("I cycle to work.").episodes[0].id
        assert set(pending_rows.queued(store)) == {first, second}
    finally:
        mem.close()
    mem = _create_again(isolated_home)
    try:
        result = mem.writes.rederive_pending()
        assert result["tried"] == 2 and result["still_pending"] == 0
        assert pending_rows.queued(store_of(mem)) == []
    finally:
        mem.close()


def test_messages_queued_together_are_derived_again_in_the_order_they_were_said(isolated_home: Path) -> None:
    """Their ids end in random bits: in the order of the ids, a second try reconciled one add's
    messages in a different order each time."""
    mem = _create(isolated_home, FailingLLM())
    try:
        said = [f"Message {n}: I keep {n} hives of bees." for n in range(12)]
        episodes = mem.add([{"role": "user", "content": text} for text in said]).episodes
        assert [e.content for e in episodes] == said
        assert pending_rows.queued(store_of(mem)) == [e.id for e in episodes]
    finally:
        mem.close()


def _create_again(home: Path) -> Memory:
    """The same store opened with the rule-based backend, which derives."""
    config = Config()
    config.organise.linking = False
    config.llm.backend = "rule-based"
    return Memory(home, embedder=HashEmbedder(), config=config)


def test_the_migration_moves_a_queued_list_kept_in_meta_to_rows(isolated_home: Path) -> None:
    mem = _create(isolated_home, FailingLLM())
    try:
        store = store_of(mem)
        with store.atomic() as conn:
            conn.execute("DROP TABLE pending_derivations")
            conn.execute("DROP TABLE forget_marks")
            conn.execute("DROP TABLE admission_keys")
            conn.execute("DELETE FROM schema_migrations WHERE version >= 6")
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('pending_derivation', '[\"ep_a\", \"ep_b\", 3]')"
            )
        assert store.migrate() >= 1
        assert pending_rows.queued(store) == ["ep_a", "ep_b"]
        assert store.get_meta("pending_derivation") is None
    finally:
        mem.close()


def test_an_import_whose_derivation_fails_queues_its_messages_in_its_own_transaction(
    isolated_home: Path, tmp_path: Path
) -> None:
    import json

    source = tmp_path / "messages.json"
    source.write_text(
        json.dumps([{"role": "user", "content": "I keep bees."}, {"role": "user", "content": "I cycle."}])
    )
    mem = _create(isolated_home, FailingLLM())
    try:
        report = mem.import_history(source)
        assert report.stored == 2
        store = store_of(mem)
        stored = {r[0] for r in store.query("SELECT id FROM episodes")}
        assert set(pending_rows.queued(store)) == stored
        assert any("derived again at the next `veramem consolidate`" in n for n in report.notices)
    finally:
        mem.close()
    mem = _create_again(isolated_home)
    try:
        assert mem.writes.rederive_pending()["still_pending"] == 0
        assert pending_rows.queued(store_of(mem)) == []
    finally:
        mem.close()
