"""The time an answer is asked for, and the version of a subject that held then.

A question may name a time ("where did I live in March 2024?", "last summer", "in 2023") or a change
("where did I work before I moved?"). The time is read by recall's own rules (core/recall/query.py finds
the phrase, core/recall/periods.py resolves it against the asker's day, core/text/time_values.py reads a
written bound); nothing here parses dates itself. The version that held then is the statement of the
subject that began to hold last before the period ends (a plan holds from the day it names); before a
change ("before I moved", "before the move to Utrecht": a clause of the asker's, or a word of change the
inventory's frames use), the newest one before the current one, or before the change made by the end of
a time named with it ("before the switch in autumn 2023").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

from veramem_desktop.core import attributes
from veramem_desktop.core.llm import ContextItem
from veramem_desktop.core.recall import periods, statements
from veramem_desktop.core.recall.query import asked_time, temporal_intent
from veramem_desktop.core.recall.statements import WORD, lemmas
from veramem_desktop.core.text.tense import tense_at
from veramem_desktop.core.text.time_values import parse_bound
from veramem_desktop.models.llm.rules.text import content_stems

#: a change named by a clause of the asker's own ("before I moved", "before we split up")
_OWN_CLAUSE = re.compile(r"^(?:i|we|my|our)\b", re.I)


@dataclass(frozen=True)
class AskedWhen:
    """What time a question asks about: statements made before ``end`` (an ISO day), or, with
    ``before_change``, the version before the current one. ``words``: the stems naming the time, which
    say nothing of the subject asked about."""

    end: str | None
    before_change: bool
    words: frozenset[str]


def asked_when(question: str, items: Sequence[ContextItem], today: date | None = None) -> AskedWhen | None:
    """The time ``question`` asks about; None when it names no time (or one that cannot be read). A time
    said as "last …" ("last summer", "last year") is counted from ``today``, the asker's day (the clock's
    UTC day when not given); a month or season named alone ("in March") is the latest one up to the
    newest of ``items``, as the conversation means it."""
    latest = _latest_day(items)
    now = max(d for d in (today or datetime.now(UTC).date(), latest) if d is not None)
    anchor = now
    found = asked_time(question)
    intent = temporal_intent(question)
    change = intent.kind == "before" and bool(intent.phrase) and _names_change(intent.phrase or "")
    if found is not None:
        if found.kind in ("month", "season") and not found.value.startswith("last") and latest is not None:
            anchor = latest
        period = periods.resolve(found, anchor)
        if period is not None:
            named = content_stems(found.value.replace("|", " ")) | {"last", "ago"}
            # "before the switch in autumn 2023": the version before the change made by then
            return AskedWhen(period.end.isoformat(), change, frozenset(named))
    if intent.kind != "before" or not intent.phrase:
        return None
    words = frozenset(content_stems(intent.phrase))
    if change:
        return AskedWhen(None, True, words)
    bound = parse_bound(intent.phrase, datetime(now.year, now.month, now.day, tzinfo=UTC))
    return AskedWhen(bound.date().isoformat(), False, words) if bound is not None else None


def _names_change(phrase: str) -> bool:
    """Whether a "before …" phrase names a change rather than a time: a clause of the asker's own ("before
    I moved"), or a verb or noun of change the inventory's frames use ("the move to Utrecht", "the
    switch", "the new job"), not a date ("May 2024") nor a day of the year ("Christmas")."""
    if _OWN_CLAUSE.match(phrase):
        return True
    changes = attributes.verbs() | attributes.SWITCH_VERBS
    return any(lemmas(w) & changes for w in WORD.findall(phrase.lower()))


def _latest_day(items: Sequence[ContextItem]) -> date | None:
    days = [d for d in (periods.as_day(i.time) for i in items) if d is not None]
    return max(days) if days else None


def held_then(statements: Sequence[ContextItem], head: ContextItem, when: AskedWhen) -> ContextItem | None:
    """Of one subject's ``statements`` (its current ``head`` among them), the one that held at the asked
    time: the newest made before the period ends, or, before a change, the newest made before the
    head. None when none is dated early enough."""
    dated = sorted((s for s in statements if s.time), key=lambda s: s.time or "")
    if when.before_change:
        # the change: the current version, or the newest begun by the end of the time named with it
        by_then = [s for s in dated if begun(s)[:10] < when.end] if when.end else []
        change = _first_saying(dated, max(by_then, key=begun) if by_then else head)
        earlier = [s for s in dated if s is not change and begun(s) < begun(change)]
        return max(earlier, key=begun) if earlier else None
    # of one day's statements, one that only says a value stopped ("quit PureGym") came before what
    # replaced it ("signed up to The Gym Group instead"), and one naming a value the inventory gives the
    # attribute ("a 2015 Honda Jazz") says what held over one naming none ("the neighbour's boy drove me")
    held = {id(s): _held_from(s, dated) for s in dated}
    before = sorted(
        (s for s in dated if held[id(s)][:10] < (when.end or "")),
        key=lambda s: (held[id(s)], not only_ends(s), typed(s)),
    )
    return before[-1] if before else None


def _held_from(statement: ContextItem, dated: Sequence[ContextItem]) -> str:
    """When ``statement``'s value began to hold, among its subject's ``dated`` statements: the day its words
    put it (:func:`begun`); for a plan naming no day ("moving to Halifax!!"), the first later statement
    naming its value again, by which the plan was done (the day said, when none does)."""
    start = begun(statement)
    if start != (statement.time or "") or not _planned(statement):
        return start
    said = statements.values(statement.text, attributes.canonical(statement.subject or ""))
    later = [s for s in dated if (s.time or "") > start and statements.values(s.text, "") & said]
    return begun(later[0]) if later else start


def _planned(statement: ContextItem) -> bool:
    """Whether the clause naming ``statement``'s first value points forward ("we're moving to Halifax")."""
    text = statements.without_reply_note(statement.text)
    for value in statements.values(text, attributes.canonical(statement.subject or "")):
        at = text.casefold().find(value)
        if at >= 0:
            return tense_at(text, at, at + len(value)) == "future"
    return False


def _first_saying(dated: Sequence[ContextItem], change: ContextItem) -> ContextItem:
    """The first of the statements right before ``change`` that name a value it names: a later line naming
    the new value again ("our living room in Utrecht is weird") is the same version, not the change
    ("we're moving to Utrecht in September")."""
    name = attributes.canonical(change.subject or "")
    said = statements.values(change.text, name)
    earlier = sorted((s for s in dated if begun(s) < begun(change)), key=begun)
    while said and earlier and statements.values(earlier[-1].text, name) & said:
        change = earlier.pop()
    return change


def typed(item: ContextItem) -> bool:
    """Whether ``item`` names a value the inventory gives the attribute it states ("Honda" a car)."""
    name = attributes.canonical(item.subject or "")
    return bool(name) and any(statements.value_of(v) == name for v in statements.values(item.text, name))


def only_ends(item: ContextItem) -> bool:
    """Whether ``item`` only says values stopped ("Saffron died in March"): it states no value that holds
    (a reply's note of the question it answered is no part of it)."""
    stopped = statements.ended(statements.without_reply_note(item.text))
    return bool(stopped) and not statements.values(item.text, "") - stopped


def begun(statement: ContextItem) -> str:
    """When a statement's value began to hold (a plan holds from the day it names)."""
    return periods.begun(statement.text, statement.time)
