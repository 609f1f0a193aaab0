"""The earlier turns of a session, shown to an extraction model as context only.

A model that sees "she moved there last year" needs the turn before to know who
"she" is and where "there" is. The write path gives the LLM backend the session's
preceding turns, newest kept first, within a token budget; the prompt marks them as
reference only and the backend refuses a memory quoting them (models/llm/validate.py).

Only turns an agent could recall are passed: same session, same user and team, not
withheld (a turn holding a rejected value, or one waiting in review because it resembles
one), not past its expiry. Forgotten turns are gone from the table, so they never appear.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from veramem_desktop.core.storage import episode_turns, rejection_rows
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.text.terms import approx_tokens

#: most earlier turns read for one add, whatever the budget
MAX_TURNS = 64
#: a turn too long for the budget is cut to its end, marked with this
CUT = "… "


def preceding_turns(
    store: Store, episodes: Sequence[Episode], budget_tokens: int, now: datetime | None = None
) -> list[Episode]:
    """The turns of the session before ``episodes``, oldest first, within ``budget_tokens``
    (an estimate at four characters a token). Empty when the budget is 0 or there is no session."""
    if budget_tokens <= 0 or not episodes or episodes[0].session_id is None:
        return []
    first = episodes[0]
    batch = {e.id for e in episodes}
    start = min(e.turn_index for e in episodes if e.session_id == first.session_id)
    moment = iso(now or datetime.now(UTC))
    with store.read() as conn:
        earlier = episode_turns.earlier_turns(
            conn,
            session_id=first.session_id,
            user_id=first.user_id,
            team_id=first.team_id,
            before_turn=start,
            moment=moment,
            limit=MAX_TURNS,
        )
        found = [e for e in earlier if e.id not in batch]
        held = rejection_rows.withheld_ids(conn, "episode", [e.id for e in found])
    chosen: list[Episode] = []
    used = 0
    for ep in found:
        if ep.id in held:
            continue
        cost = approx_tokens(ep.content)
        if used + cost > budget_tokens:
            if not chosen:  # the turn just before still matters most: keep its end
                keep = max(0, budget_tokens * 4 - len(CUT))
                chosen.append(_cut(ep, keep))
            break
        chosen.append(ep)
        used += cost
    return chosen[::-1]


def _cut(ep: Episode, keep: int) -> Episode:
    return replace(ep, content=CUT + (ep.content[len(ep.content) - keep :] if keep else ""))
