"""A rejection made on one device holds on the others (through their own write path), and forgetting a
user erases that user's grants, rows and rejections on every device, with no way back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fake_embedder import HashEmbedder
from sync_e2e_helpers import OTHER_USER, USER, Device, converge, deliver, make_devices, own_files
from veramem_desktop.core.storage import items, ledger_verify
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.vectors import VectorIndex
from veramem_desktop.core.write.derive import Writer
from veramem_desktop.core.write.ingest import store_episodes
from veramem_desktop.core.write.results import AddResult
from veramem_desktop.models.llm.rule_based import RuleBasedLLM
from veramem_desktop.sync.replica import state_hash


@pytest.fixture
def devices(tmp_path: Path) -> Iterator[list[Device]]:
    made = make_devices(tmp_path, ["a", "b", "c"])
    yield made
    for d in made:
        d.store.close()


def write_path_add(device: Device, text: str, user: str = USER) -> AddResult:
    """Add a message the way ``Memory.add`` does: store the episode, then derive memories from it."""
    embedder = HashEmbedder()
    stored = store_episodes(
        device.store, embedder, [EpisodeInput(content=text)], Scope(user_id=user), device=device.ledger_device
    )
    writer = Writer(
        device.store,
        VectorIndex(embedder.name, embedder.dim).memory,
        embedder,
        RuleBasedLLM(),
        device=device.ledger_device,
    )
    return writer.derive(stored)


def _refused_as_rejected(outcome: AddResult) -> bool:
    return (
        not outcome.added and not outcome.updated and any("rejected" in r["reason"] for r in outcome.rejected)
    )


def test_a_value_rejected_on_one_device_cannot_be_reasserted_on_another(devices: list[Device]) -> None:
    a, b, _ = devices
    added = write_path_add(a, "I live in Berlin.").added
    assert added
    memory_id = added[0]["id"]
    converge([a, b])
    assert b.store.query_one("SELECT trust FROM memory_items WHERE id = ?", (memory_id,))[0] != "rejected"
    assert b.store.query_one("SELECT count(*) FROM rejected_values")[0] == 0

    assert a.reject(memory_id)
    converge([a, b])
    assert b.store.query_one("SELECT trust FROM memory_items WHERE id = ?", (memory_id,))[0] == "rejected"
    assert b.store.query_one("SELECT count(*) FROM rejected_values")[0] > 0
    # The rejection keys are HMACs under each store's own secret: recorded locally, never copied.
    assert set(a.store.query("SELECT skeleton FROM rejected_values")).isdisjoint(
        b.store.query("SELECT skeleton FROM rejected_values")
    )
    assert _refused_as_rejected(write_path_add(b, "I live in Berlin."))
    assert _refused_as_rejected(write_path_add(b, "I live in \u0412erlin."))  # a Cyrillic capital Ve
    # Another value is still welcome.
    assert write_path_add(b, "I live in Lisbon.").added


def test_a_rejection_holds_even_when_a_concurrent_change_wins_the_trust_field(devices: list[Device]) -> None:
    a, b, _ = devices
    memory_id = write_path_add(a, "My car is red.").added[0]["id"]
    converge([a, b])
    assert a.reject(memory_id)
    a.service.run()
    # B marks it verified later (it has not seen the rejection yet): B's clock wins the field ...
    with b.store.atomic() as conn:
        items.set_fields(conn, memory_id, device=b.ledger_device, op="memory.approve", trust="verified")
    converge([a, b])
    assert state_hash(a.store) == state_hash(b.store)
    # ... yet both devices still refuse the rejected value.
    assert b.unrecorded_rejections() == [] and a.unrecorded_rejections() == []
    assert _refused_as_rejected(write_path_add(b, "My car is red."))


def test_forgetting_a_user_erases_their_grants_rows_and_rejections_on_every_device(
    devices: list[Device],
) -> None:
    a, b, _ = devices
    keep = a.add("the kettle lives on the left shelf")
    mine = a.add("bob keeps his qxzsecretdiary in the drawer", user=OTHER_USER)
    wrong = a.add("bob is allergic to qxzwrongberries", user=OTHER_USER)
    gone_grant = a.grant(OTHER_USER, "agent-x")
    kept_grant = a.grant(USER, "agent-x")
    assert a.reject(wrong)
    converge([a, b])
    assert b.user_leftovers(OTHER_USER) == {"memories": 2, "episodes": 2, "grants": 1, "rejected_values": 1}

    a.forget_user(OTHER_USER)
    converge([a, b])
    for d in (a, b):
        assert d.user_leftovers(OTHER_USER) == {
            "memories": 0,
            "episodes": 0,
            "grants": 0,
            "rejected_values": 0,
        }
        assert d.store.query_one("SELECT 1 FROM memory_items WHERE id = ?", (keep,)) is not None
        assert d.store.query_one("SELECT 1 FROM grants WHERE id = ?", (kept_grant,)) is not None
        assert ledger_verify.verify(d.store).ok, d.name
        tombs = {
            (r[0], r[1])
            for r in d.store.query("SELECT target_kind, target_id FROM ledger WHERE op = 'forget'")
        }
        assert {
            ("memory", mine),
            ("memory", wrong),
            ("grant", gone_grant),
            ("rejection", f"rejection:{wrong}"),
        } <= tombs
        # Tombstones carry ids only: the forgotten user is not named by any of them.
        assert not any(OTHER_USER in target for _, target in tombs)
    assert state_hash(a.store) == state_hash(b.store)


def test_a_grant_of_a_forgotten_user_arriving_late_is_not_brought_back(devices: list[Device]) -> None:
    a, b, c = devices
    grant_id = b.grant(OTHER_USER, "agent-y")
    a.add("bob has a note about qxzlategrant", user=OTHER_USER)
    b.service.run()
    early = own_files(b)  # B's batch holding the grant, as a slow sync engine still has it
    deliver(b, a)
    a.service.run()
    assert a.store.query_one("SELECT 1 FROM grants WHERE id = ?", (grant_id,)) is not None
    a.forget_user(OTHER_USER)
    a.service.run()
    deliver(a, c)
    c.service.run()  # C learns of the forget first ...
    deliver(b, c, early)
    c.service.run()  # ... then receives the grant itself
    assert c.store.query_one("SELECT 1 FROM grants WHERE id = ?", (grant_id,)) is None
    converge([a, b, c])
    assert len({state_hash(d.store) for d in (a, b, c)}) == 1
    for d in (a, b, c):
        assert d.user_leftovers(OTHER_USER)["grants"] == 0, d.name
        assert ledger_verify.verify(d.store).ok


def test_forgetting_a_user_erases_a_version_another_user_wrote_of_their_memory_on_every_device(
    devices: list[Device],
) -> None:
    """Found by the convergence property test: b writes a new version of the other user's memory, then
    forgets that user; the whole chain goes on b too, so every device agrees."""
    _, b, _ = devices
    theirs = b.add("other user's fact says tokenX", user=OTHER_USER)
    version = b.update(theirs, "revised fact now says tokenY")
    assert version is not None
    b.forget_user(OTHER_USER)
    assert (
        b.store.query_one("SELECT count(*) FROM memory_items WHERE id IN (?, ?)", (theirs, version))[0] == 0
    )
    converge(devices)
    assert len({state_hash(d.store) for d in devices}) == 1
