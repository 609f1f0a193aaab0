"""A retraction retracts the same person's current memory of what stopped.

"I sold the Volvo." after "I have a Volvo." says the stored memory no longer holds. A model, or the
rule-based reconciler, may read it as a new fact beside the old one; this step, run by the write path
on every candidate whatever model extracted it (the decision is the engine's, from the speaker's own
words in the quote, read by core/write/retraction_forms.py), finds the current memory of the same person
that states the thing with the verb that stopped, and retracts it whatever reconciliation decided
(:func:`decided`, unless that decision already retracts or replaces it). The person is read from
the memories' words ("User …", "Mel …"; a named speaker's "I" is theirs), so "Mel no longer works
there" retracts Mel's memory, never the user's. When no such memory is found reconciliation's
decision stands, and :func:`other_person` keeps any backend's DELETE from retracting another
person's memory.
Pure functions over the memories the writer offers (core/write/derive.py): no SQL, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veramem_desktop.core.llm import Candidate, Decision
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.items import ROLE_AUTHORITY, MemoryItem
from veramem_desktop.core.vocabulary import Authority, Kind, Status
from veramem_desktop.core.write import retraction_forms
from veramem_desktop.core.write.correction_targets import speaker
from veramem_desktop.core.write.same_add import Pool

#: the reason of every decision this step makes (core/write/decisions.py names the guard by it)
REASON = "a retraction"
#: the reason of a DELETE turned into an ADD because it spoke of another person (:func:`other_person`)
OTHER_PERSON = "it speaks of another person than the memory it would retract"
_RETRACTABLE = frozenset({Kind.FACT, Kind.PREFERENCE, Kind.EVENT})


@dataclass(frozen=True)
class Retracted:
    """The plan for a retracting candidate: the memory it retracts (with its cosine) and the decision."""

    target: MemoryItem
    cosine: float
    decision: Decision
    #: what the speaker's words say stopped (core/write/retraction_forms.py)
    reading: retraction_forms.Retraction


def retract(cand: Candidate, text: str, ep: Episode, pool: Pool) -> Retracted | None:
    """The memory ``cand`` retracts, or None. ``text`` is the candidate's wording (attributed); ``pool``
    gives the memories near it in its scope with their cosines (read only when a retraction is read)."""
    found = retraction_forms.read(cand.quote)
    if found is None or (found.verb == "have" and retraction_forms.replaced(ep.content)):
        return None
    about = retraction_forms.person(text) or speaker(ep)
    if about is None:
        return None
    held = [
        (m, c)
        for m, c in pool()
        if m.status == Status.ACTIVE
        and m.kind in _RETRACTABLE
        and _about(m, about, text)
        and retraction_forms.retracts(found, _words(m), m.predicate)
    ]
    if not held:
        return None
    own = ROLE_AUTHORITY.get(ep.role, Authority.UNENDORSED)
    target, cosine = max(held, key=lambda p: _fit(p[0], p[1], own, cand, about))
    verb = "" if found.verb in (None, "be", "have") else f"{found.verb} "
    reason = f"{REASON}: {verb}{found.thing or 'it'} no longer holds".replace("  ", " ")
    return Retracted(target, cosine, Decision("DELETE", target.id, reason=reason), found)


def decided(
    cand: Candidate,
    text: str,
    ep: Episode,
    pool: Pool,
    neighbours: list[tuple[MemoryItem, float]],
    decision: Decision,
) -> tuple[Decision, Retracted | None]:
    """``decision`` (a model's, or the rule-based reconciler's) after the engine's reading of a
    retraction: the memory the candidate retracts is retracted (and joins ``neighbours``), unless the
    decision already retracts or replaces that memory. A candidate whose words are not about what
    stopped states the rest of the retracting sentence ("User joined Globex." quoting "I quit my job
    at Acme and joined Globex"): it keeps ``decision``, and the retraction is returned to be planned
    beside it, so the sentence loses neither."""
    found = retract(cand, text, ep, pool)
    if found is None or (decision.op in ("DELETE", "UPDATE") and decision.target_id == found.target.id):
        return decision, None
    if found.target.id not in {m.id for m, _ in neighbours}:
        neighbours.append((found.target, found.cosine))
    if not retraction_forms.holds_thing(found.reading, _words_of(text)):
        return decision, found
    return found.decision, None


def other_person(text: str, target: MemoryItem) -> bool:
    """Whether a DELETE worded ``text`` would retract a memory about another person than it speaks of
    (any backend's decision: "Mel no longer works at Acme" against "User works at Acme")."""
    return not retraction_forms.same_person(text, _words(target))


def _about(m: MemoryItem, person: str, text: str) -> bool:
    """A memory about ``person`` ("User's editor is Vim" is the user's), or about someone the retraction
    names ("Anna is no longer User's partner" and "User's partner is Anna")."""
    about = retraction_forms.person(_words(m)) or (m.subject.casefold() if m.subject else None)
    return about == person or (about is not None and retraction_forms.names(text, about))


def _fit(
    m: MemoryItem, cosine: float, own: str, cand: Candidate, person: str
) -> tuple[int, int, int, float, str]:
    """The speaker's own authority first, then the person exactly, the same key, closeness, the newest."""
    exact = int((retraction_forms.person(_words(m)) or "") == person)
    same_key = int(bool(cand.predicate) and m.predicate == cand.predicate)
    return (int(m.authority == own), exact, same_key, cosine, m.id)


def _words(m: MemoryItem) -> str:
    """A memory's words without a lower-authority source's attribution."""
    return _words_of(m.text)


def _words_of(text: str) -> str:
    """Words without a lower-authority source's attribution."""
    return re.sub(r"^According to [^:]{1,80}:\s*", "", text)
