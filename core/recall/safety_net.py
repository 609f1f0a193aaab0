"""Recall's safety net: when the write path missed a change, the newest statement of an attribute leads.

The truth stage (core/recall/truth.py) knows what the write path recorded: versions, retractions,
conflicts, keys. When a change was said in words the write path did not key ("We finally moved to
Amsterdam!" after "I live in Berlin."), or keyed under another name of the same attribute, both
statements are current in the store, and relevance alone may put the old one first. This stage reads,
for each hit, which attribute of whom it states, by the one inventory (core/attributes.py):

- a keyed memory by its key (the predicate's canonical name, so "relation:wife" and "relation:partner"
  are one attribute), and a message by the keyed memories made from it;
- any other hit of the person's own (authority "authorized") by its words (core/recall/statements.py):
  the inventory's frames and nouns, read the same way for a search hit and for a listed memory
  (core/recall/states.py), so every surface gives one memory one state.

Hits stating one single-valued attribute of one person form one subject. Its newest statement that
holds (current, not history told in the past) leads; an older live statement leaves the lead, as
``probably_superseded`` with ``superseded_by`` naming the leader, when the leader names a value it does
not or says the value ended ("Handed in my notice"). A statement telling history ("when I still used
Vim") never leads and, with a leader, is history too. Multi-valued attributes (pets, languages learnt)
do not replace each other. Nothing rejected or held takes part, and a claim of lower authority never
leads the person's own statements. No store read: the rows are those the truth stage read already.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from veramem_desktop.core import attributes
from veramem_desktop.core.recall import statements
from veramem_desktop.core.recall.hits import Hit
from veramem_desktop.core.storage.items import AUTHORITY_RANK
from veramem_desktop.core.storage.rejections import Keyed
from veramem_desktop.core.trust.action_gate import may_act
from veramem_desktop.core.vocabulary import Authority, State

STATE = State.PROBABLY_SUPERSEDED
_LIVE = (State.CURRENT, State.IN_CONFLICT)


@dataclass(frozen=True)
class _Said:
    """One hit read as a statement of an attribute: whose, which, when, the values it names."""

    hit: Hit
    person: str
    attribute: str
    values: frozenset[str]
    ends: bool
    historic: bool


Union = Callable[[str, str], None]


def apply(
    hits: Sequence[Hit],
    rows: Mapping[str, Keyed],
    related: Mapping[str, list[str]],
    union: Union,
) -> None:
    """Label the older statements of each attribute the hits state ``probably_superseded`` when a newer
    one leads, and join each subject's hits (``union``). ``rows``: the memories' truth rows by id;
    ``related``: the memories made from each message hit."""
    subjects: dict[tuple[str, str], list[_Said]] = {}
    for h in hits:
        for said in _statements(h, rows, related):
            subjects.setdefault((said.person, said.attribute), []).append(said)
    for members in subjects.values():
        if len(members) > 1:
            _settle(members, union)


def _statements(h: Hit, rows: Mapping[str, Keyed], related: Mapping[str, list[str]]) -> list[_Said]:
    """The attributes ``h`` states, read from its key (or its memories' keys), else from its words."""
    if h.state not in _LIVE:
        return []
    keyed = [rows[m] for m in ([h.id] if h.kind != "episode" else related.get(h.id, [])) if m in rows]
    keyed = [r for r in keyed if r.subject and r.predicate]
    if keyed:
        return [s for r in keyed if (s := _from_key(h, r)) is not None]
    if h.authority != Authority.AUTHORIZED:
        return []
    found = statements.read(h.text)
    if found is None or found.other:
        return []
    attribute = statements.attribute_of(found)
    if h.subject is None:
        h.subject = attribute  # what it speaks about, as a keyed hit says it (the answer matches on it)
    return [_Said(h, _person(h, None), attribute, found.values, found.ends, found.historic)]


def _from_key(h: Hit, row: Keyed) -> _Said | None:
    predicate = attributes.canonical(row.predicate or "")
    if attributes.is_multi_valued(predicate):
        return None
    found = statements.read(h.text)
    values = frozenset({(row.value or "").casefold()} - {""}) | (found.values if found else frozenset())
    historic = found.historic if found is not None else statements.tells_history(h.text)
    return _Said(h, _person(h, row), predicate, values, bool(found and found.ends), historic)


def _person(h: Hit, row: Keyed | None) -> str:
    """Whose attribute: a keyed memory's subject; else the speaker ("user" for the person's own words)."""
    who = row.subject if row is not None and row.subject else (h.source or "user")
    return f"{h.user_id or ''}/{who.casefold().strip()}"


def _settle(members: list[_Said], union: Union) -> None:
    """Within one subject (its hits joined by ``union``): the newest live statement of the highest
    authority leads; older ones it replaces, and history, leave the lead."""
    rank = max(_authority(m.hit) for m in members)
    leaders = [m for m in members if not m.historic and _authority(m.hit) == rank]
    if not leaders:
        return
    newest = max(m.hit.time or "" for m in leaders)
    heads = [m for m in leaders if (m.hit.time or "") == newest]
    lead = max(heads, key=lambda m: (m.hit.kind != "episode", m.hit.score))
    for m in members:
        union(m.hit.id, lead.hit.id)  # one subject, whether or not its value changed
        if m.hit is lead.hit or any(m.hit is h.hit for h in heads):
            continue
        if m.historic or _replaces(heads, m):
            m.hit.state = STATE
            m.hit.superseded_by = lead.hit.id
            m.hit.actionable = may_act(m.hit.authority, m.hit.state)


def _replaces(heads: list[_Said], old: _Said) -> bool:
    """Whether a newer leading statement replaces ``old``: it is later, and it says the value ended or
    names a value ``old`` does not."""
    return any(
        (h.hit.time or "") > (old.hit.time or "") and (h.ends or bool(h.values - old.values)) for h in heads
    )


def _authority(h: Hit) -> int:
    return AUTHORITY_RANK.get(h.authority, 0)
