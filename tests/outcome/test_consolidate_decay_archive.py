"""Decay changes retrieval strength only; archiving takes unhelpful memories out of the way, never pinned ones."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from outcome_support import DEVICE, ScriptedLLM, open_store, put, snapshot
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.lifecycle import decay
from veramem_desktop.core.lifecycle.consolidation import ConsolidateReport, consolidate
from veramem_desktop.core.storage import items, ledger, ledger_verify
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path)
    yield s
    s.close()


def _run(store: Store, now: datetime) -> ConsolidateReport:
    embedder = HashEmbedder()
    report = consolidate(
        store,
        embedder,
        ScriptedLLM(),
        VectorCache("memory", embedder.name, embedder.dim),
        device=DEVICE,
        now=now,
    )
    assert report.reconciles, report.to_dict()
    return report


@given(st.floats(0, 3650), st.floats(0, 3650), st.floats(0, 1), st.booleans())
def test_strength_never_grows_with_idle_time(a: float, b: float, importance: float, verified: bool) -> None:
    lo, hi = sorted((a, b))
    assert 0.0 <= decay.strength(hi, importance, verified) <= decay.strength(lo, importance, verified) <= 1.0


@given(st.floats(1, 3650), st.floats(0, 1), st.floats(0, 1))
def test_important_and_verified_memories_fade_more_slowly(days: float, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert decay.strength(days, hi, False) >= decay.strength(days, lo, False)
    assert decay.strength(days, lo, True) >= decay.strength(days, lo, False)


def test_decay_changes_retrieval_strength_and_nothing_else(store: Store) -> None:
    embedder = HashEmbedder()
    plain = put(store, embedder, "Ann's locker code is on a sticky note.", session=None, importance=0.1)
    important = put(store, embedder, "Ann is allergic to penicillin.", session=None, importance=0.9)
    verified = put(
        store, embedder, "Ann's desk is by the window.", session=None, importance=0.1, trust="verified"
    )
    pinned = put(store, embedder, "Ann's badge number is on file.", session=None, pinned=True)
    before = snapshot(store, ignore=("updated_at", "retrieval_strength"))
    report = _run(store, datetime.now(UTC) + timedelta(days=90))
    assert snapshot(store, ignore=("updated_at", "retrieval_strength")) == before
    s = {m.id: items.get(store, m.id).retrieval_strength for m in (plain, important, verified, pinned)}
    assert s[plain.id] < s[verified.id] < 1.0 and s[plain.id] < s[important.id] < 1.0
    assert s[pinned.id] == 1.0
    assert report.stages["decay"].found == 4 and report.stages["decay"].skipped == {"pinned": 1}
    assert report.stages["archive"].found == 0  # no outcome yet: nothing is "low utility"
    ops = [e.op for e in ledger.entries(store) if e.target_id == plain.id]
    assert ops[-1] == "memory.decay" and ledger_verify.verify(store).ok


def test_a_second_decay_at_the_same_moment_has_nothing_to_do(store: Store) -> None:
    put(store, HashEmbedder(), "Ann parks on level two.", session=None)
    later = datetime.now(UTC) + timedelta(days=40)
    assert _run(store, later).stages["decay"].written == 1
    again = _run(store, later).stages["decay"]
    assert (again.found, again.written, again.skipped) == (1, 0, {"unchanged": 1})


def _outcomes(
    store: Store,
    item_id: str,
    *,
    uses: int,
    successes: float,
    failures: float,
    last_used: datetime | None = None,
) -> None:
    """Outcomes the person gave (their share is what may archive their own authorized facts)."""
    with store.atomic() as conn:
        items.set_fields(
            conn,
            item_id,
            device=DEVICE,
            op="memory.outcome",
            uses=uses,
            successes=successes,
            failures=failures,
            last_used_at=(last_used or datetime.now(UTC)).isoformat(),
            metadata={"person_outcomes": {"uses": uses, "successes": successes, "failures": failures}},
        )


def test_memories_that_keep_failing_are_archived_unless_pinned(store: Store) -> None:
    embedder = HashEmbedder()
    bad = put(store, embedder, "Ann's wifi password is hunter2.", session=None)
    pinned_bad = put(store, embedder, "Ann's gym opens at six.", session=None, pinned=True)
    young_bad = put(store, embedder, "Ann's bus is the 42.", session=None)
    good = put(store, embedder, "Ann's dentist is Dr Lee.", session=None)
    _outcomes(store, bad.id, uses=3, successes=0.0, failures=3.0)
    _outcomes(store, pinned_bad.id, uses=3, successes=0.0, failures=3.0)
    _outcomes(store, young_bad.id, uses=2, successes=0.0, failures=2.0)  # too few uses to judge yet
    _outcomes(store, good.id, uses=5, successes=5.0, failures=0.0)
    report = _run(store, datetime.now(UTC))
    archive = report.stages["archive"]
    assert (archive.found, archive.written, archive.skipped, archive.ids) == (2, 1, {"pinned": 1}, [bad.id])
    status = {m.id: items.get(store, m.id).status for m in (bad, pinned_bad, young_bad, good)}
    assert status == {bad.id: "archived", pinned_bad.id: "active", young_bad.id: "active", good.id: "active"}
    entry = [e for e in ledger.entries(store) if e.target_id == bad.id][-1]
    assert entry.op == "memory.archive" and entry.details["reason"] == "low_utility"


def test_unhelpful_memories_unused_for_the_idle_period_are_archived(store: Store) -> None:
    embedder = HashEmbedder()
    stale = put(store, embedder, "Ann's old phone is a Nokia.", session=None)
    never_rated = put(store, embedder, "Ann's birthday is in May.", session=None)
    _outcomes(store, stale.id, uses=1, successes=0.0, failures=1.0)
    soon = _run(store, datetime.now(UTC) + timedelta(days=10)).stages["archive"]
    assert soon.found == 0
    later = _run(store, datetime.now(UTC) + timedelta(days=61)).stages["archive"]
    assert later.ids == [stale.id]
    # a memory nobody has rated is not "low utility": it is kept however long it goes unused
    assert items.get(store, never_rated.id).status == "active"
