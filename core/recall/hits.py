"""What recall returns: hits with their relevance, priors and truth, and the search result."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from veramem_desktop.core.vocabulary import STALE_STATES, State, Status

#: every state a hit can have, in the order core/vocabulary.py lists and describes them
STATES = tuple(State)
#: states whose text is not what the memory holds now
STALE = STALE_STATES


@dataclass
class Hit:
    id: str
    kind: str  # a memory kind, or "episode"
    text: str
    score: float
    authority: str
    #: a memory's review state (candidate, verified: a person approved it, rejected); "raw" for an episode
    trust: str
    status: str = Status.ACTIVE
    time: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    source: str | None = None
    channels: dict[str, int] = field(default_factory=dict)
    root_id: str | None = None
    #: the ranking prior (utility, recency, trust, usage) added to the relevance score
    prior: float = 0.0
    state: str = State.CURRENT
    #: what stands for a stale hit now: its chain's active version, what it was merged into, the
    #: memory made from the statement that retracted it, or the newer statement that probably replaced it
    superseded_by: str | None = None
    #: for a retracted hit: the message (episode id) whose statement retired it
    retracted_by: str | None = None
    #: for a version that corrects a mistake: the value the correction said was wrong
    corrects: str | None = None
    conflicts_with: list[str] = field(default_factory=list)
    #: for an episode: the memories derived from it (its evidence) or that it restates
    derived: list[str] = field(default_factory=list)
    #: what the hit speaks about ("lives_in") and the value it gives, when known
    subject: str | None = None
    value: str | None = None
    #: whom it speaks of: "user" (the person whose memory this is), a named speaker, or None (unknown)
    about: str | None = None
    #: hits about one subject share a group (an opaque label, stable within one result)
    group: str | None = None
    #: whether an agent may act on it: authorized, current, not rejected, not in open conflict
    actionable: bool = False
    #: the cosine between the question and the hit (core/recall/relevance.py), None when not measured
    closeness: float | None = None
    #: whether the hit reaches the model's relevance floor (a hit below it is shown, labelled, never dropped)
    close: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SearchResult:
    trace_id: str
    route: str
    results: list[Hit]
    shared: list[Hit]
    temporal: str | None = None
    took_ms: float = 0.0
    #: what the search could not honour, said rather than dropped (an unreadable time bound)
    notices: list[str] = field(default_factory=list)
    #: no hit of the caller's own reaches the relevance floor: nothing found is close to the question
    nothing_close: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "trace_id": self.trace_id,
            "route": self.route,
            "temporal": self.temporal,
            "results": [h.to_dict() for h in self.results],
            "shared": [h.to_dict() for h in self.shared],
            "took_ms": round(self.took_ms, 2),
            "notices": self.notices,
            "nothing_close": self.nothing_close,
        }
