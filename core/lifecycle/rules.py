"""Pure rules that consolidation's stages share (core/lifecycle/stages.py, core/lifecycle/merge.py,
core/lifecycle/experiences.py, core/lifecycle/revise.py): what a stage counts, scopes, the kinds
it works on, disagreeing values, and the key under which two questions count as the same
question. No SQL here."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.text.normalize import skeleton
from veramem_desktop.core.vocabulary import Kind

ScopeKey = tuple[str | None, str | None, str | None, str]  # user, team, agent, visibility

#: the kinds drawn from conversations, that consolidation merges, fuses and summarises
BASE_KINDS = (Kind.FACT, Kind.PREFERENCE, Kind.EVENT)

#: the kinds consolidation builds from others (and revises or retires when a source changes)
DERIVED_KINDS = (Kind.SUMMARY, Kind.EXPERIENCE)

_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass
class StageCount:
    """What one stage found, wrote (new items), reinforced (existing items it strengthened instead
    of copying) and skipped by reason: ``found == written + reinforced + skipped`` always holds."""

    found: int = 0
    written: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)  # what was written (archived, new items, decayed)
    reinforced: list[str] = field(default_factory=list)  # one entry per unit folded into an existing item

    def wrote(self, item_id: str) -> None:
        self.written += 1
        self.ids.append(item_id)

    def reinforce(self, item_id: str) -> None:
        self.reinforced.append(item_id)

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    @property
    def reconciles(self) -> bool:
        return self.found == self.written + len(self.reinforced) + sum(self.skipped.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "found": self.found,
            "written": self.written,
            "reinforced": len(self.reinforced),
            "skipped": dict(sorted(self.skipped.items())),
            "ids": list(self.ids),
            "reinforced_ids": list(dict.fromkeys(self.reinforced)),
        }


def scope_of(item: MemoryItem) -> ScopeKey:
    return (item.user_id, item.team_id, item.agent_id, item.visibility)


def values_disagree(cluster: Sequence[MemoryItem]) -> bool:
    """Two members with the same subject/predicate but different values are no duplicates."""
    values: dict[tuple[str, str], set[str]] = {}
    for m in cluster:
        if m.subject and m.predicate and m.value:
            values.setdefault((m.subject, m.predicate), set()).add(skeleton(m.value))
    return any(len(v) > 1 for v in values.values())


def conflict_inside(cluster: Sequence[MemoryItem]) -> bool:
    """A recorded conflict between two members (the store-wide check is core/lifecycle/conflicts.py)."""
    ids = {m.id for m in cluster}
    return any(ids & set(m.metadata.get("conflicts_with", [])) for m in cluster)


def question_key(question: str) -> str:
    """Two questions that differ only in case, spacing, punctuation or look-alike characters get
    one key. The key is a digest, so an experience can record which questions it answered
    without keeping their words a second time."""
    words = _WORDS.findall(skeleton(question))
    return hashlib.blake2b(
        " ".join(words).encode("utf-8"), digest_size=12, person=b"veramem-question"
    ).hexdigest()
