"""A statement that names a plan beside what holds until then is two versions of its subject.

"We're moving to Utrecht in September, currently renting in Rotterdam" says two values of one attribute:
the one its plan clause names holds from the day that clause puts after the message (core/recall/periods.py
reads it, forward from the message time), and the one another clause names holds until then. Once that
day has come, the rule answer treats the statement as two items with its id: the plan clause, current
from its day, and the other clause, replaced by it. So the current value is said once, the old one as
past ("before that, Rotterdam"), and a question naming a time before the plan's day, or asking what held
before the change, is answered with the clause that held then. Only the person's own one-sentence
statements are read; a statement whose day has not come is left whole (it is still a plan).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from datetime import date

from veramem_desktop.core.llm import ContextItem
from veramem_desktop.core.recall import periods, statements
from veramem_desktop.core.vocabulary import EPISODE_KIND, LIVE_STATES, Authority, State

_LIVE = LIVE_STATES
#: words that say a clause holds at the time of speaking, not once the plan is done
_PRESENT = re.compile(r"^(?:(?:currently|for now|right now|at the moment|still|now)\b[\s,]*)+", re.I)


def split(items: Sequence[ContextItem], today: date) -> list[ContextItem]:
    """``items`` with each statement of a plan whose day has come (by ``today``) as its two versions: the
    plan clause first, then what held until its day."""
    out: list[ContextItem] = []
    for item in items:
        parts = _parts(item)
        if parts is None or parts[2][:10] > today.isoformat():
            out.append(item)
            continue
        before, plan, start = parts
        value = item.value if item.value and item.value.casefold() in plan.casefold() else None
        group = item.group or item.id  # one subject: the answer says the plan's value, the other as past
        out.append(dataclasses.replace(item, text=plan, time=start, value=value, group=group))
        out.append(
            dataclasses.replace(
                item,
                text=before,
                value=None,
                state=State.PROBABLY_SUPERSEDED,
                superseded_by=item.id,
                group=group,
            )
        )
    return out


def dated_by_siblings(items: Sequence[ContextItem]) -> list[ContextItem]:
    """``items`` with each of the person's own statements naming a value dated from the later day a
    sentence of the same message gives without naming anything ("Going with Lattice Works." beside "I
    start on the 4th of August."): the value holds from that day, as a plan said in one sentence does."""
    starts: dict[str, str] = {}
    for item in items:
        if _own(item) and not statements.values(item.text, ""):
            start = periods.begun(item.text, item.time)
            if start[:10] > (item.time or "")[:10]:
                starts[item.time or ""] = min(start, starts.get(item.time or "", start))
    if not starts:
        return list(items)
    out = []
    for item in items:
        day = starts.get(item.time or "")
        said_when = periods.begun(item.text, item.time) == item.time
        if day and _own(item) and said_when and statements.values(item.text, ""):
            item = dataclasses.replace(item, time=day)
        out.append(item)
    return out


def _own(item: ContextItem) -> bool:
    return (
        item.authority == Authority.AUTHORIZED
        and item.state in _LIVE
        and bool(item.time)
        and item.kind != EPISODE_KIND
    )


def _parts(item: ContextItem) -> tuple[str, str, str] | None:
    """(what held until the plan's day, the plan clause, that day) for the person's own live statement of
    one sentence that has one clause naming a value from a later day and another naming a value now."""
    if (
        item.authority != Authority.AUTHORIZED
        or item.state not in _LIVE
        or not item.time
        or item.kind == EPISODE_KIND
    ):
        return None
    text = item.text.strip()
    if len(statements.sentences(text)) != 1:
        return None
    told = item.time[:10]
    plans, nows = [], []
    for clause in statements.clauses(text.rstrip(".!")):
        named = statements.values(clause, "")
        start = periods.begun(clause, item.time)
        if named and start[:10] > told:
            plans.append((clause, start, named))
        elif named:
            nows.append((clause, named))
    if len(plans) != 1 or not nows:
        return None
    clause, start, named = plans[0]
    held = [c for c, v in nows if not v & named]
    if not held:
        return None
    before = _PRESENT.sub("", ", ".join(held)).strip()
    return f"{before[:1].upper()}{before[1:]}.", f"{clause}.", start
