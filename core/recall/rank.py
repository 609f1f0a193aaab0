"""Ranking after the channels: the shortlist worth reading, hits read from the store with their
ranking priors (utility, recency, trust, reachability, the usage-learned score), and time bounds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from veramem_desktop.core import attributes
from veramem_desktop.core.recall import learned, questions
from veramem_desktop.core.recall.fusion import prior
from veramem_desktop.core.recall.hits import Hit
from veramem_desktop.core.recall.query import TemporalIntent
from veramem_desktop.core.recall.recipes import SearchConfig
from veramem_desktop.core.storage import episode_contents, item_search
from veramem_desktop.core.storage.ids import iso, parse_iso
from veramem_desktop.core.storage.items import ROLE_AUTHORITY
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.text.time_values import parse_bound
from veramem_desktop.core.vocabulary import EPISODE_KIND, Authority, State, Status, Trust


def shortlist(scores: dict[str, float], k: int, config: SearchConfig) -> dict[str, float]:
    """The candidates that could still reach the top ``k`` once priors are added.

    Priors move a score by at most about ``utility_lambda`` plus the small recency, trust and
    reachability terms, so a candidate fused further than that below the k-th cannot enter the
    results; reading and scoring only the rest keeps search cost flat as the store grows.
    """
    floor = max(4 * k, 40)
    if len(scores) <= floor:
        return scores
    ordered = sorted(scores, key=scores.__getitem__, reverse=True)
    kth = scores[ordered[min(k, len(ordered)) - 1]]
    span = config.utility_lambda + config.recency_weight + 0.05
    keep = ordered[:floor] + [d for d in ordered[floor : 10 * floor] if scores[d] >= kth - span]
    return {d: scores[d] for d in keep}


def hydrate(
    store: Store,
    scores: dict[str, float],
    ranks: dict[str, dict[str, int]],
    now: datetime,
    config: SearchConfig,
    model: learned.LearnedModel | None,
    truth_rows: dict[str, item_search.TruthRow] | None = None,
) -> list[Hit]:
    """The hits of ``scores`` read from the store, each with its relevance score and its prior (not yet added).
    Each memory's truth row (:class:`~veramem_desktop.core.storage.item_search.TruthRow`) goes to
    ``truth_rows`` when given: it comes with the same read."""
    ids = list(scores)
    hits: list[Hit] = []
    for r in item_search.hit_rows(store, [i for i in ids if i.startswith("mem_")]):
        if truth_rows is not None:
            truth_rows[r.id] = r.truth()
        age = (now - parse_iso(r.valid_from)).total_seconds() / 86400
        util = (float(r.successes) + 1.0) / (float(r.successes) + float(r.failures) + 2.0)
        bonus = prior(
            utility_value=util,
            age_days=age,
            trust=r.trust,
            retrieval_strength=float(r.retrieval_strength),
            utility_lambda=config.utility_lambda,
            recency_weight=config.recency_weight,
        )
        if model is not None:
            feats = learned.features(
                importance=float(r.importance),
                confidence=float(r.confidence),
                uses=int(r.uses),
                last_used_at=r.last_used_at,
                valid_from=r.valid_from,
                now=now,
            )
            bonus = learned.blend(bonus, feats, model, config.learned_share)
        hits.append(
            Hit(
                id=r.id,
                kind=r.kind,
                text=r.text,
                score=scores[r.id],
                authority=r.authority,
                trust=r.trust,
                status=r.status,
                time=r.valid_from,
                user_id=r.user_id,
                session_id=r.session_id,
                source=r.source,
                channels=ranks.get(r.id, {}),
                root_id=r.root_id,
                prior=bonus,
            )
        )
    for e in episode_contents.hit_rows(store, [i for i in ids if i.startswith("ep_")]):
        hits.append(episode_hit(e, scores[e.id], ranks.get(e.id, {})))
    return settled(hits)


def settled(hits: list[Hit]) -> list[Hit]:
    """``hits`` by score, ties broken by what they say, never by their ids (random past their creation time:
    two memories of one message would change places between two imports of it): the newer first, then
    the memory before the message it came from, then by text. Every later sort is stable, so equal
    scores keep this order."""
    return sorted(
        hits, key=lambda h: (-h.score, h.time is None, _newest_first(h.time), h.kind == EPISODE_KIND, h.text)
    )


def _newest_first(time: str | None) -> tuple[int, ...]:
    """A key putting later ISO times first."""
    return tuple(-ord(c) for c in time or "")


def episode_hit(
    row: episode_contents.EpisodeHitRow, score: float, channels: dict[str, int] | None = None
) -> Hit:
    """A raw message as a hit: the authority of its speaker's role, never more; trust "raw"."""
    return Hit(
        id=row.id,
        kind=EPISODE_KIND,
        text=row.content,
        score=score,
        authority=ROLE_AUTHORITY.get(row.role, Authority.UNENDORSED),
        trust=Trust.RAW,
        status=Status.ACTIVE,
        time=row.event_time,
        user_id=row.user_id,
        session_id=row.session_id,
        source=row.source_name or row.role,
        channels=channels or {},
    )


def apply_priors(hits: list[Hit]) -> list[Hit]:
    for h in hits:
        h.score += h.prior
    return hits


@dataclass(frozen=True)
class TimeBound:
    kind: str  # "since" or "before"
    moment: str  # ISO


def time_bound(intent: TemporalIntent, now: datetime) -> tuple[TimeBound | None, str | None]:
    """The bound a "since …" / "before …" question sets, read against ``now``; or a notice saying which
    time expression could not be read (the results are then not filtered by time)."""
    if intent.kind not in ("since", "before") or not intent.phrase:
        return None, None
    moment = parse_bound(intent.phrase, now)
    if moment is None:
        return None, f"could not read the time {intent.phrase!r}; the results are not limited by time"
    return TimeBound(intent.kind, iso(moment)), None


def within(hits: list[Hit], bound: TimeBound | None) -> list[Hit]:
    if bound is None:
        return hits
    if bound.kind == "since":
        return [h for h in hits if (h.time or "") >= bound.moment]
    return [h for h in hits if (h.time or "") < bound.moment]


#: the asker's own first person in a question: "I", "me", "my", "mine", "myself"
_FIRST_PERSON = re.compile(r"\bI\b|\b(?:me|my|mine|myself)\b", re.IGNORECASE)


def asker_first(hits: list[Hit], query: str) -> list[Hit]:
    """A question in the asker's first person ("Where do I live?") that names nobody the hits speak of
    is about the asker: hits about another named person (Mel's home, from Mel's own words in a
    conversation of several people) go after the others, each part in its order. Nothing is dropped."""
    if not _FIRST_PERSON.search(query):
        return hits
    other = [(h.about or "user").casefold() != "user" for h in hits]
    words = set(re.findall(r"[\w'-]+", query.casefold()))
    if any(set((h.about or "").casefold().split()) <= words for h, o in zip(hits, other, strict=True) if o):
        return hits  # "What did I tell Mel?" is about Mel too
    own = [h for h, o in zip(hits, other, strict=True) if not o]
    return statements_first(own, query) + [h for h, o in zip(hits, other, strict=True) if o]


def statements_first(hits: list[Hit], query: str) -> list[Hit]:
    """Of the asker's own hits, those that state the attribute a first-person question asks about ("Where do
    I work?": a hit the truth stage keyed or read as works_at) and hold now go first, each part in its
    order (the truth stage's: a subject's head stays above what it replaced). A line of chit-chat that only
    shares a word ("that would all work") no longer comes before the statement asked for."""
    wanted = questions.asked(query)
    if not wanted:
        return hits
    stating = [
        h.state in (State.CURRENT, State.IN_CONFLICT) and attributes.canonical(h.subject or "") in wanted
        for h in hits
    ]
    return [h for h, s in zip(hits, stating, strict=True) if s] + [
        h for h, s in zip(hits, stating, strict=True) if not s
    ]
