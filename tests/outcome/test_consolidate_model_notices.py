"""What a consolidation's own model calls had to say (a retry after an unusable reply) is in its
report's notices, next to the stage that made the call: each call's notices come back with its
reply, so nothing is collected from the backend afterwards and nothing of another caller's is."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from outcome_support import DEVICE, ScriptedLLM, open_store, put
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from veramem_desktop.core.lifecycle.consolidation import consolidate
from veramem_desktop.core.llm import Notice, Reply
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.models.llm.fallback import FallbackLLM

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

SESSION = ["Ann booked a flight to Oslo.", "Ann packed warm boots.", "Ann renewed her passport."]


def _fill(store: Store, embedder: HashEmbedder) -> None:
    """One session to summarise, and an answer that used it and was rewarded, to distil."""
    ids = [put(store, embedder, t, session="s-ok").id for t in SESSION]
    with store.atomic() as conn:
        conn.execute(
            "INSERT INTO traces(id, kind, created_at, user_id, query, route, returned_ids, cited_ids, reward,"
            " rewarded_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                "tr_oslo",
                "answer",
                now_iso(),
                "ann",
                "how did I get ready for Oslo?",
                "facts",
                json.dumps(ids),
                json.dumps(ids),
                1.0,
                now_iso(),
            ),
        )


class RetryingLLM(ScriptedLLM):
    """The scripted model, each of whose replies came after one unusable reply (its notice says so)."""

    def _reply(self, task: str, text: str) -> Reply[str]:
        reply = super()._reply(task, text)
        said = Notice("scripted", task, f"Unusable reply, asking again: call {len(self.calls)}")
        return Reply(reply.value, (said,))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path)
    yield s
    s.close()


def test_the_retry_notices_of_the_summarise_and_distil_calls_are_in_the_report(store: Store) -> None:
    embedder = HashEmbedder()
    _fill(store, embedder)
    llm = RetryingLLM()
    report = consolidate(
        store, embedder, llm, VectorCache("memory", embedder.name, embedder.dim), device=DEVICE
    )
    retried = [n for n in report.notices if "Unusable reply, asking again" in n]
    answered = [c for c in llm.calls if "FAIL" not in c[1]]  # a failed call raised: no reply, no notice
    assert len(retried) == len(answered) == 2
    assert {n.split(":")[0] for n in retried} == {"scripted summarise", "scripted abstract"}


def test_the_facade_consolidates_with_the_model_alone_so_a_failure_is_counted_not_answered_by_rules(
    isolated_home: Path,
) -> None:
    """Consolidation asks the model without its rule-based fallback: a failure leaves the session
    for the next run (counted, with a notice) instead of a rule-based summary."""
    config = Config()
    config.organise.linking = False
    llm = FallbackLLM(ScriptedLLM())  # extraction falls back to the rules; consolidation must not
    mem, _ = Memory.create(
        isolated_home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        config=config,
        embedder=HashEmbedder(),
        llm=llm,
    )
    try:
        for text in ("Ann FAIL planted tomatoes.", "Ann watered the basil.", "Ann bought a new hose."):
            mem.add(text, session_id="garden")
        report = mem.consolidate()
        assert report.stages["summarise"].skipped.get("model_failed") == 1 and report.model_failures >= 1
        assert report.stages["summarise"].written == 0
        assert [n for n in report.notices if "scripted failure of summarise" in n]
        assert not [n for n in report.notices if "Used the rule-based result" in n]
    finally:
        mem.close()
