"""The answer path: retrieve → select → answer from those only → strip uncited ids →
abstain when unsupported, climbing the sufficiency ladder first:
dual channel → source episodes of the retrieved facts → neighbouring turns.
A question naming a time also gets the other versions of the memories retrieved (what held then).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from veramem_desktop.core import attributes
from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import LLM, AnswerDraft, ContextItem
from veramem_desktop.core.recall import STALE, Hit, SearchEngine, asked, questions
from veramem_desktop.core.recall.fence import fence
from veramem_desktop.core.recall.query import asked_time, route_for, temporal_intent
from veramem_desktop.core.recall.rank import asker_first, episode_hit
from veramem_desktop.core.storage import (
    episode_contents,
    episode_turns,
    item_evidence,
    item_scopes,
    items,
    traces,
)
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.ids import iso, new_id
from veramem_desktop.core.vocabulary import EPISODE_KIND, State, Status

LADDER = ("dual", "source_episodes", "neighbouring_turns")


@dataclass
class AnswerResult:
    question: str
    text: str
    cited: list[Hit]
    abstained: bool
    trace_id: str
    ladder: list[str] = field(default_factory=list)
    context_dropped: int = 0
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.text,
            "abstained": self.abstained,
            "cited": [h.to_dict() for h in self.cited],
            "trace_id": self.trace_id,
            "ladder": self.ladder,
            "context_dropped": self.context_dropped,
            "notices": self.notices,
        }


def _attrs(hit: Hit) -> dict[str, object]:
    return {
        "kind": hit.kind,
        "authority": hit.authority,
        "source": hit.source,
        "time": (hit.time or "")[:10],
        "state": hit.state,
        "superseded_by": hit.superseded_by,
        "retracted_by": hit.retracted_by,
        "corrects": hit.corrects,
        "conflicts_with": "+".join(hit.conflicts_with),
    }


def _context(
    pool: dict[str, Hit], question: str, told: Collection[str] = (), meant: frozenset[str] = frozenset()
) -> list[Hit]:
    """What the answer may use, best first (the asker's own first for a first-person question, as search
    orders it): an episode whose own memory is also in the pool is left out
    (the memory says it, with its state), so nothing is said twice; a message that retracted an item of
    the pool stays, so that the answer can cite the statement that retired it, and so does a message a
    statement retracted a value of (the memory of it in the pool may be another value it gave, still holding)."""
    # the pool holds search's results in search's order, then what the ladder added, each below the last
    ordered = asker_first(list(pool.values()), question)
    # the asked attribute's statements as one subject, newest first, as search gives them (for a question
    # naming a time, the answer then takes the version that held then)
    ordered = asked.settle(ordered, question, meant)
    present = set(pool)
    retiring = {h.retracted_by for h in ordered}
    return [
        h
        for h in ordered
        if not (
            h.kind == EPISODE_KIND
            and present & set(h.derived)
            and h.id not in retiring
            and h.state != State.RETRACTED
            and not (h.id in told and h.state in STALE)
        )
    ]


def _as_versions(pool: dict[str, Hit], told: dict[str, item_scopes.KeyedVersion]) -> None:
    """Each message that stated a version of the asked attribute, labelled as that version: what it states,
    its value, whether it still holds, and since when."""
    for episode, (_, predicate, value, status, valid_from) in told.items():
        h = pool[episode]
        h.subject, h.value, h.time = predicate, value, valid_from
        h.state = State.CURRENT if status == Status.ACTIVE else status


def _names_a_time(question: str) -> bool:
    """Whether the question asks about a time ("in March 2024", "last summer", "before I moved")."""
    return asked_time(question) is not None or temporal_intent(question).kind == "before"


def _presented_stale(cited: list[str], pool: dict[str, Hit]) -> list[str]:
    """Cited items that are history while what replaced them, or the message that retracted them, is in
    the pool and was not cited: an answer relying on them presents a superseded or retracted statement
    as current."""
    return [
        i
        for i in cited
        if pool[i].state in STALE
        and any(r in pool and r not in cited for r in (pool[i].superseded_by, pool[i].retracted_by))
    ]


class Answerer:
    def __init__(self, engine: SearchEngine, llm: LLM, *, budget_tokens: int = 2000) -> None:
        self.engine = engine
        self.store = engine.store
        self.llm = llm
        self.budget = budget_tokens

    def answer(self, question: str, caller: Caller, *, k: int = 10) -> AnswerResult:
        notices: list[str] = []
        # composed from the statements first (the messages they came from are the ladder's "dual" rung)
        first = self.engine.search(question, caller, k=k, route=route_for(question), write_trace=False)
        pool: dict[str, Hit] = {h.id: h for h in first.results}
        for h in first.shared:  # shared items may inform, labelled, never displacing the caller's own
            pool.setdefault(h.id, h)
        steps = [f"retrieve:{first.route}"]
        told: dict[str, item_scopes.KeyedVersion] = {}
        meant = self.engine.meant(question)
        if _names_a_time(question):
            added = self._versions(pool, caller)
            told = self._timeline(pool, caller, question, meant)
            if added or told:
                steps.append("versions")
                self._annotate(pool)
                _as_versions(pool, told)
        draft, dropped = self._ask(question, pool, notices, told, meant)
        for step in LADDER:
            if draft is not None and not draft.abstained and draft.sufficient:
                break
            added = self._climb(step, question, caller, pool, k)
            steps.append(step)
            if not added:
                continue
            self._annotate(pool)
            draft, dropped = self._ask(question, pool, notices, told, meant)
        text, cited_ids, abstained = "", [], True
        if draft is not None:
            cited_ids = [i for i in dict.fromkeys(draft.cited_ids) if i in pool]  # strip ids never retrieved
            stale = _presented_stale(cited_ids, pool)
            if stale:  # refused like an invented citation
                notices.append(
                    f"the answer relied on {', '.join(stale)}, which no longer hold; they were not cited"
                )
                cited_ids = [i for i in cited_ids if i not in stale]
            # Still not enough once the whole ladder is climbed: abstain rather than half-answer.
            abstained = draft.abstained or not cited_ids or not draft.sufficient
            text = draft.text
        if abstained:
            text = (
                text
                if draft is not None and draft.abstained and text
                else "The stored memories do not say; I cannot answer that from memory."
            )
            cited_ids = []
        cited = [pool[i] for i in cited_ids]
        trace_id = new_id("tr")
        with self.store.atomic() as conn:
            traces.insert_answer(
                conn,
                trace_id,
                iso(datetime.now(UTC)),
                caller.user_id,
                caller.agent_id,
                question,
                first.route,
                json.dumps(list(pool)),
                json.dumps(cited_ids),
                text,
                abstained,
                json.dumps({"ladder": steps, "dropped": dropped}),
            )
        return AnswerResult(question, text, cited, abstained, trace_id, steps, dropped, notices)

    def _versions(self, pool: dict[str, Hit], caller: Caller) -> int:
        """For a question naming a time: the messages that stated the other versions of the pool's memories
        (what held then may not be what relevance found; a replaced memory is history, which only its
        messages show), those the caller may see, below everything found. How many were added."""
        before = len(pool)
        chains = {
            m.id
            for h in list(pool.values())
            if h.kind != EPISODE_KIND
            for m in items.history(self.store, h.id)
        }
        others = sorted(chains - pool.keys())
        if others:
            floor = min((h.score for h in pool.values()), default=0.0) - 0.01
            self._add_episodes(item_evidence.cited_episode_ids(self.store, others), caller, pool, score=floor)
        return len(pool) - before

    def _timeline(
        self, pool: dict[str, Hit], caller: Caller, question: str, meant: frozenset[str]
    ) -> dict[str, item_scopes.KeyedVersion]:
        """For a question naming a time and asking an attribute of the asker: each message that stated a
        version of it that held for a time (current, replaced or ended), found by the attribute's key
        whatever its words, with the version it stated, those the caller may see, below everything found."""
        if questions.person_asked(question):
            return {}
        versions = item_scopes.keyed_versions(
            self.store, caller.user_id, "user", sorted(questions.asked(question) or meant)
        )
        by_id = {v[0]: v for v in versions}
        turns = (
            item_evidence.cited_visible_turns(self.store, list(by_id), caller, iso(datetime.now(UTC)))
            if by_id
            else []
        )
        told = {episode: by_id[memory] for memory, episode in turns}
        floor = min((h.score for h in pool.values()), default=0.0) - 0.02
        self._add_episodes([e for e in told if e not in pool], caller, pool, score=floor)
        return {e: v for e, v in told.items() if e in pool}

    def _annotate(self, pool: dict[str, Hit]) -> None:
        """Label what the ladder added (its state, what it speaks about) like search labels its hits."""
        for h in self.engine.annotate(list(pool.values())):
            pool[h.id] = h

    def _ask(
        self,
        question: str,
        pool: dict[str, Hit],
        notices: list[str],
        told: Collection[str] = (),
        meant: frozenset[str] = frozenset(),
    ) -> tuple[AnswerDraft | None, int]:
        ordered = _context(pool, question, told, meant)
        fenced = fence([(h.id, _attrs(h), h.text) for h in ordered], budget_tokens=self.budget)
        items = [
            ContextItem(
                h.id,
                h.text,
                h.kind,
                h.authority,
                h.time,
                h.state,
                h.superseded_by,
                tuple(h.conflicts_with),
                h.group,
                tuple(h.derived),
                h.value,
                h.source,
                h.subject,
                h.retracted_by,
                h.corrects,
                h.closeness,
                attributes.canonical(h.subject or "") in meant,
                h.session_id,
            )
            for h in ordered
            if h.id in fenced.included
        ]
        if not items:
            return None, fenced.dropped
        try:
            return self.llm.answer(question, items, fenced.text).unwrap(notices), fenced.dropped
        except ModelError as exc:
            notices.append(f"the answer model failed ({exc.message})")
            return None, fenced.dropped

    def _climb(self, step: str, question: str, caller: Caller, pool: dict[str, Hit], k: int) -> int:
        before = len(pool)
        if step == "dual":
            result = self.engine.search(question, caller, k=k, route="dual", write_trace=False)
            for h in result.results:
                pool.setdefault(h.id, h)
        elif step == "source_episodes":
            mem_ids = [i for i in pool if i.startswith("mem_")]
            if mem_ids:
                ep_ids = item_evidence.cited_episode_ids(self.store, mem_ids)
                self._add_episodes(ep_ids, caller, pool, score=0.0)
        elif step == "neighbouring_turns":
            ep_ids = [i for i in pool if i.startswith("ep_")]
            neighbours: list[str] = []
            for eid in ep_ids:
                place = episode_turns.position(self.store, eid)
                if place is None or place.session_id is None:
                    continue
                turn = place.turn_index
                neighbours += episode_turns.turn_ids(self.store, place.session_id, (turn - 1, turn + 1))
            self._add_episodes(neighbours, caller, pool, score=-0.01)
        return len(pool) - before

    def _add_episodes(self, ids: list[str], caller: Caller, pool: dict[str, Hit], score: float) -> None:
        for eid in ids:
            if eid in pool:
                continue
            row = episode_contents.visible_hit_row(self.store, eid, caller, iso(datetime.now(UTC)))
            if row is None:  # the access predicate applies to every rung of the ladder
                continue
            pool[eid] = episode_hit(row, score)
