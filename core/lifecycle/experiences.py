"""Consolidation's distil stage: experiences from well-rated traces, reinforced rather than copied.

A trace rewarded at least ``experience_reward`` is a unit per scope of the memories it used
(only the asker's own, active ones). Units that ask the same question (core/lifecycle/rules.py
``question_key``: case, spacing, punctuation and look-alike characters aside) in one scope,
resting on memories of one authority, are one experience:

- when an experience already stands for that question, it is reinforced: its ``support``
  (how many well-rated traces it stands for) rises, its retrieval strength is restored, the
  traces and any new source memories are added (``derivations``), and the ledger records a
  ``memory.reinforce`` entry naming the traces and the sources added. No model call.
- otherwise the model abstracts one of them (the question and the memories that answered it)
  into the slot template; the reply is checked (core/lifecycle/abstraction.py) and a garbled one is
  refused (``garbled_abstraction``) and reported in the notices. When the new text is as
  good as an experience already stored in the scope (cosine ≥ ``experience_cosine``), that
  one is reinforced instead; else a new experience is written, with the group's support.

Counters: each unit is written (the one that made a new experience), reinforced, or skipped
by reason, so ``found == written + reinforced + skipped``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.lifecycle import abstraction
from veramem_desktop.core.lifecycle.rules import ScopeKey, StageCount, question_key, scope_of
from veramem_desktop.core.storage import derivations, item_scopes, item_states, items, traces
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.vocabulary import Kind, Status, Trust

if TYPE_CHECKING:
    from veramem_desktop.core.lifecycle.stage_common import Consolidator


@dataclass
class Unit:
    trace_id: str
    query: str
    members: list[MemoryItem]

    @property
    def scope(self) -> ScopeKey:
        return scope_of(self.members[0])

    @property
    def authority(self) -> str:
        return items.weakest([m.authority for m in self.members])


def traces_of(item: MemoryItem) -> list[str]:
    """The traces an experience stands for (older experiences recorded one, as ``from_trace``)."""
    found = list(item.metadata.get("from_traces", []))
    if item.metadata.get("from_trace") and item.metadata["from_trace"] not in found:
        found.insert(0, item.metadata["from_trace"])
    return found


def story(query: str, members: list[MemoryItem]) -> str:
    """What the model abstracts: the question, then the memories that answered it."""
    return f"Someone asked: {query.strip()}\nThese memories answered it well. " + " ".join(
        m.text.strip().rstrip(".") + "." for m in members
    )


def abstract(con: Consolidator, text: str, notices: list[str]) -> tuple[str | None, str, str]:
    """(abstraction, skip reason, notice) from the model: None with a reason when it failed, was
    empty or too long, or is garbled (a slot that does not replace a whole value)."""
    try:
        reply = con.llm.abstract_experience(text).unwrap(notices)  # a retry's notice, if any
    except ModelError as exc:
        return None, "model_failed", f"the model failed ({exc.message}); left for the next run"
    reply = reply.strip() if isinstance(reply, str) else ""
    if not reply or len(reply) > con.config.summary_max_chars:
        return (
            None,
            "model_junk",
            f"the model's reply was {'empty' if not reply else 'too long'}; left for the next run",
        )
    wrong = abstraction.problems(reply, text)
    if wrong:
        return None, "garbled_abstraction", f"the abstraction was refused: {'; '.join(wrong)}"
    return reply, "", ""


def distil(con: Consolidator, count: StageCount, notices: list[str]) -> None:
    done, standing = _standing_experiences(con)
    groups = _units_to_distil(con, count, done)
    for n, (key, units) in enumerate(groups.items(), start=1):
        target = standing.get(key)
        if target is not None:
            _reinforce_all(con, count, target, units, key[2])
        else:
            made = _distil_group(con, count, notices, units, key[2])
            if made is not None:
                standing[key] = made
        con.tick("distil", n, len(groups))


def _standing_experiences(
    con: Consolidator,
) -> tuple[set[tuple[Any, ...]], dict[tuple[Any, ...], MemoryItem]]:
    """(the (trace, scope) pairs already distilled, the experience standing for each (scope, authority,
    question key)): an active experience wins over an archived one."""
    done: set[tuple[Any, ...]] = set()
    standing: dict[tuple[Any, ...], MemoryItem] = {}  # (scope, authority, question key) → experience
    for e in item_states.standing(
        con.store, statuses=(Status.ARCHIVED, Status.ACTIVE), kinds=(Kind.EXPERIENCE,), derived=True
    ):
        for tid in traces_of(e):
            done.add((tid, *scope_of(e)))
        for key in e.metadata.get("questions", []):
            slot = (scope_of(e), e.authority, key)
            if slot not in standing or e.status == Status.ACTIVE:
                standing[slot] = e
    return done, standing


def _units_to_distil(
    con: Consolidator, count: StageCount, done: set[tuple[Any, ...]]
) -> dict[tuple[Any, ...], list[Unit]]:
    """The well-rewarded traces' units not distilled yet, grouped by (scope, authority, question key)."""
    cfg = con.config
    groups: dict[tuple[Any, ...], list[Unit]] = {}
    for tid, user_id, query, returned, cited in traces.rewarded_at_least(con.store, cfg.experience_reward):
        own = _own_active_memories(con, user_id, cited, returned)
        count.found += max(1, len({scope_of(m) for m in own}))
        if not own:
            count.skip("no_own_memories")
            continue
        by_scope: dict[ScopeKey, list[MemoryItem]] = {}
        for m in own:
            by_scope.setdefault(scope_of(m), []).append(m)
        for scope, members in by_scope.items():
            if (tid, *scope) in done:
                count.skip("already_distilled")
                continue
            unit = Unit(tid, query, members[: cfg.experience_max_items])
            groups.setdefault((scope, unit.authority, question_key(query)), []).append(unit)
    return groups


def _own_active_memories(
    con: Consolidator, user_id: str | None, cited: str | None, returned: str | None
) -> list[MemoryItem]:
    """The trace's cited memories (else those it returned) that are the user's own, active and not rejected."""
    ids = [i for i in (json.loads(cited or "[]") or json.loads(returned or "[]")) if i.startswith("mem_")]
    found = items.get_many(con.store, ids)
    return [
        found[i]
        for i in ids
        if i in found
        and found[i].user_id == user_id
        and found[i].status == Status.ACTIVE
        and found[i].trust != Trust.REJECTED
    ]


def _distil_group(
    con: Consolidator, count: StageCount, notices: list[str], units: list[Unit], qkey: str
) -> MemoryItem | None:
    """One model call for a group of units asking one question: a new experience, or the
    reinforcement of an equivalent one the model's text matches."""
    first = units[0]
    source_text = story(first.query, first.members)
    text, reason, why = abstract(con, source_text, notices)
    if text is None:
        count.skip(reason, len(units))
        notices.append(f"trace {first.trace_id} experience: {why}")
        return None
    vector = con.embedder.embed([text])[0]
    similar = _most_similar(con, first, vector)
    if similar is not None:
        _reinforce_all(con, count, similar, units, qkey)
        return None
    with con.store.atomic() as conn:
        if not con.still_active(conn, first.members):
            count.skip("changed_meanwhile", len(units))
            return None
        support = [u.trace_id for u in units]
        item = con.write_derived(
            conn,
            first.members,
            Kind.EXPERIENCE,
            text,
            {"from_traces": support, "questions": [qkey], "support": len(support)},
            None,
            f"distilled from trace {first.trace_id}",
            vector=vector,
        )
        added = _extend_sources(conn, item, [m for u in units[1:] for m in u.members])
        count.wrote(item.id)
        for _ in units[1:]:
            count.reinforce(item.id)
        if len(units) > 1:
            items.set_fields(
                conn,
                item.id,
                device=con.device,
                op="memory.reinforce",
                details={"traces": support[1:], "support": len(support), "sources_added": added},
            )
    return item


def _most_similar(con: Consolidator, unit: Unit, vector: Any) -> MemoryItem | None:
    """An active experience of the unit's scope and authority whose text is as good as ``vector``."""
    user, team, agent, visibility = unit.scope
    ids = item_scopes.experience_ids(con.store, user, team, agent, visibility, unit.authority)
    if not ids:
        return None
    con.vectors.refresh(con.store)
    best = con.vectors.top(vector, con.vectors.positions(ids), 1)
    if not best or best[0][1] < con.config.experience_cosine:
        return None
    return items.get_many(con.store, [best[0][0]]).get(best[0][0])


def _reinforce_all(
    con: Consolidator, count: StageCount, target: MemoryItem, units: list[Unit], qkey: str
) -> None:
    """Fold ``units`` into ``target``: support, strength, traces, questions and sources, one ledger entry."""
    with con.store.atomic() as conn:
        current = item_states.read(conn, target.id)
        if (
            current is None
            or current.status not in (Status.ACTIVE, Status.ARCHIVED)
            or current.trust == Trust.REJECTED
        ):
            count.skip("changed_meanwhile", len(units))
            return
        added = _extend_sources(conn, current, [m for u in units for m in u.members])
        traces = [u.trace_id for u in units]
        support = int(current.metadata.get("support", max(1, len(traces_of(current))))) + len(units)
        questions = sorted({*current.metadata.get("questions", []), qkey})
        items.set_fields(
            conn,
            current.id,
            device=con.device,
            op="memory.reinforce",
            retrieval_strength=1.0,
            last_used_at=now_iso(),
            metadata={
                "support": support,
                "from_traces": [*traces_of(current), *traces],
                "questions": questions,
                "from_trace": None,
            },
            details={"traces": traces, "support": support, "sources_added": added},
        )
        for _ in units:
            count.reinforce(current.id)


def _extend_sources(conn: Connection, item: MemoryItem, members: list[MemoryItem]) -> list[str]:
    """Record ``members`` as sources of ``item`` (so forgetting any of them reaches it); returns
    the ids that were not sources yet."""
    have = set(derivations.sources_of(conn, item.id))
    added = [i for i in dict.fromkeys(m.id for m in members) if i not in have]
    derivations.add(conn, item.id, added)
    return added


def question_of(con: Consolidator, item: MemoryItem) -> str | None:
    """The question an experience answered, from the first of its traces still stored."""
    for tid in traces_of(item):
        query = traces.query_of(con.store, tid)
        if query:
            return query
    return None
