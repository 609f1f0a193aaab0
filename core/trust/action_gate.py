"""The action gate: the one definition of whether an agent may act on a recalled item.

An item may authorise an action when the user (or the system) said it (authority
``authorized``) and it is what memory holds now: state ``current``, meaning active, not
rejected or held back for resembling a rejected value, not superseded, retracted or
archived, and not in an open conflict a person has not settled. Assistant claims
(attested), tool output, documents and shared items (unendorsed), raw messages and
history never authorise an action. Search hits carry it as ``actionable`` (set by the
truth stage, core/recall/truth.py), MCP blocks as ``may_act=``, REST JSON as
``actionable``; :func:`core.sharing.may_act_on` applies it to a stored memory.
"""

from __future__ import annotations

from veramem_desktop.core.vocabulary import Authority, State, Status, Trust

#: the only authority that may authorise an action
ACTING_AUTHORITY = Authority.AUTHORIZED
#: the only recall state that may authorise an action
ACTING_STATE = State.CURRENT


def may_act(authority: str, state: str) -> bool:
    """True when an item of this authority, in this recall state, may authorise an action."""
    return authority == ACTING_AUTHORITY and state == ACTING_STATE


def memory_state(*, trust: str, status: str, open_conflict: bool = False) -> str:
    """A stored memory's recall state from its own fields (the truth stage's rules, for one item)."""
    if trust == Trust.REJECTED:
        return State.REJECTED
    if status != Status.ACTIVE:
        return status
    return State.IN_CONFLICT if open_conflict else State.CURRENT
