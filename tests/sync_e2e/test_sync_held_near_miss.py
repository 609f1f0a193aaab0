"""A message held for resembling a rejected value is held on every device, with what was taken from it.

Real encrypted stores and the real sync engine (``pair``). The rejection reaches the other device as a
rejected memory, whose keys (near keys included) that device records itself; the near miss written on
one device lands on the other held, and so do the memories taken from it, even those whose own words do
not hold the near miss.
"""

from __future__ import annotations

from support.fake_embedder import HashEmbedder
from sync_e2e_helpers import USER, Device, converge
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.vectors import VectorIndex
from veramem_desktop.core.write.derive import Writer
from veramem_desktop.core.write.ingest import store_episodes
from veramem_desktop.core.write.results import AddResult
from veramem_desktop.models.llm.rule_based import RuleBasedLLM


def _add(device: Device, text: str) -> tuple[str, AddResult]:
    embedder = HashEmbedder()
    [episode] = store_episodes(
        device.store, embedder, [EpisodeInput(content=text)], Scope(user_id=USER), device=device.ledger_device
    )
    writer = Writer(
        device.store,
        VectorIndex(embedder.name, embedder.dim).memory,
        embedder,
        RuleBasedLLM(),
        device=device.ledger_device,
    )
    return episode.id, writer.derive([episode])


def _held(device: Device, kind: str) -> set[str]:
    return {
        r[0]
        for r in device.store.query(
            "SELECT owner_id FROM withheld WHERE owner_kind = ? AND reason = 'resembles'", (kind,)
        )
    }


def test_a_near_miss_written_on_one_device_lands_held_on_the_other(pair: list[Device]) -> None:
    a, b = pair
    _, outcome = _add(a, "I live in Berlin.")
    assert a.reject(outcome.added[0]["id"])
    converge([a, b])
    episode_id, outcome = _add(a, "I live in Berlln and I love tea.")
    taken = {d["id"] for d in outcome.added}
    assert taken and episode_id in _held(a, "episode") and taken <= _held(a, "memory")
    converge([a, b])
    assert episode_id in _held(b, "episode")
    assert taken <= _held(b, "memory")
