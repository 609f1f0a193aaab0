"""A memory in full, as one caller may read it (``Memory.detail``): its evidence inside the source
episodes, every version, their ledger entries, its links and the memories it is in conflict with.

Every piece goes through the reads by id of ``core/curation/reads.py`` with the caller, so what an agent
may not see is left out here as everywhere (evidence in such messages is counted, not shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from veramem_desktop.core.curation import reads
from veramem_desktop.core.recall.states import states
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage import ledger
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store


@dataclass
class EvidenceView:
    episode: Episode
    quote: str
    span_start: int
    span_end: int
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode": self.episode.to_dict(),
            "quote": self.quote,
            "span_start": self.span_start,
            "span_end": self.span_end,
            "score": self.score,
        }


@dataclass
class MemoryDetail:
    item: MemoryItem
    evidence: list[EvidenceView]
    versions: list[MemoryItem]
    ledger: list[ledger.LedgerEntry]
    links: list[dict[str, Any]]
    conflicts: list[str]
    #: its state as search labels it (core/recall/states.py): current, in_conflict (a conflict above still
    #: open), superseded, retracted, archived, rejected or held
    state: str = ""
    #: pieces of evidence left out because they stand in messages the caller may not see (None: the person)
    evidence_withheld: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": self.item.to_dict(),
            "evidence": [e.to_dict() for e in self.evidence],
            "versions": [v.to_dict() for v in self.versions],
            "ledger": [e.to_dict() for e in self.ledger],
            "links": self.links,
            "conflicts": self.conflicts,
            "state": self.state,
            **({} if self.evidence_withheld is None else {"evidence_withheld": self.evidence_withheld}),
        }


def detail(store: Store, reader: Caller, memory_id: str) -> MemoryDetail:
    """The memory ``memory_id`` in full, as ``reader`` may read it (NotFoundError when it may not)."""
    item = reads.get_shown(store, reader, memory_id)
    versions = reads.history(store, reader, memory_id)
    evidence, withheld = reads.evidence(store, reader, memory_id)
    eps = episodes_mod.get_many(store, [e.episode_id for e in evidence])
    views = [
        EvidenceView(eps[e.episode_id], e.quote, e.span_start, e.span_end, e.score)
        for e in evidence
        if e.episode_id in eps
    ]
    entries: list[ledger.LedgerEntry] = []
    for version in versions:
        entries += reads.ledger_entries(store, reader, target_id=version.id)
    entries = sorted({e.seq: e for e in entries}.values(), key=lambda e: e.seq)
    return MemoryDetail(
        item,
        views,
        versions,
        entries,
        reads.links(store, reader, memory_id),
        list(item.metadata.get("conflicts_with", [])),
        states(store, [item.id]).get(item.id, item.status),
        None if reader.keyholder else withheld,
    )
