"""The one visibility rule: which stored rows no read shows, whoever reads them and through whichever surface.

A row is shown only when it passes all of these (the caller and its grants are the other half of the
rule, core/storage/access.py, which builds every channel's SQL from the fragments here):

- **not withheld**: no ``withheld`` row holds it (it holds a rejected value, or resembles one while a
  person has not decided), and a memory is not rejected itself. A person who asks for rejected material
  (never an agent) passes this part.
- **not expired**: an expiry (``metadata.expires_at``, core/lifecycle/expiry.py) that has passed hides a row
  at read time, before the sweep erases it. Expiry is scoped to what only the expiring messages support:

  - a message has *lapsed* when its own expiry has passed;
  - a memory is expired when it is not pinned, its expiry has passed, and none of its evidence stands in
    a message kept without an expiry (a later statement of the same fact with no expiry keeps it, and
    its evidence; one given an expiry of its own does not stretch the memory's);
  - a message is expired when it has lapsed and no memory that is not expired cites it.
- **not forgotten**: ``forget`` erases the rows themselves (core/lifecycle/forget.py), so nothing of them
  is left to read.

The same fragments decide the sweep (core/storage/expiry_rows.py), the SQL of every recall channel, the
reads by id (:func:`hidden_ids`, core/curation/reads.py) and every export, so a row cannot be shown by one
path and hidden by another. Every fragment reads the moment of the question from the ``:now`` parameter.
Times are canonical ISO text and compare as strings; ``instr`` first keeps the JSON read off the rows
that carry no expiry at all (nearly all of them).
"""

from __future__ import annotations

from collections.abc import Sequence

from veramem_desktop.core.storage.store import Connection

KINDS = ("memory", "episode")


def lapsed(alias: str) -> str:
    """SQL: the row ``alias`` (a memory or an episode) carries an expiry that has passed by ``:now``."""
    return (
        f"(instr({alias}.metadata, 'expires_at') > 0 "
        f"AND json_extract({alias}.metadata, '$.expires_at') <= :now)"
    )


def memory_expired(alias: str) -> str:
    """SQL: the memory ``alias`` is expired (see the module docstring)."""
    return (
        f"({alias}.pinned = 0 AND {lapsed(alias)} AND NOT EXISTS (SELECT 1 FROM evidence xv "
        f"JOIN episodes xe ON xe.id = xv.episode_id WHERE xv.memory_id = {alias}.id "
        f"AND json_extract(xe.metadata, '$.expires_at') IS NULL))"
    )


def episode_expired(alias: str) -> str:
    """SQL: the message ``alias`` is expired (see the module docstring)."""
    return (
        f"({lapsed(alias)} AND NOT EXISTS (SELECT 1 FROM evidence yv JOIN memory_items ym "
        f"ON ym.id = yv.memory_id WHERE yv.episode_id = {alias}.id AND NOT {memory_expired('ym')}))"
    )


def not_withheld(kind: str, alias: str) -> str:
    """SQL: no ``withheld`` row holds the ``kind`` row ``alias`` (memory or episode)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {KINDS}")
    return f"NOT EXISTS (SELECT 1 FROM withheld w WHERE w.owner_kind = '{kind}' AND w.owner_id = {alias}.id)"


def memory_shown(alias: str) -> str:
    """SQL: the memory ``alias`` passes the rule; rejected and withheld ones pass only with ``:show_rejected``."""
    return (
        f"(((:show_rejected = 0 AND {alias}.trust != 'rejected' AND {not_withheld('memory', alias)}) "
        f"OR :show_rejected = 1) AND NOT {memory_expired(alias)})"
    )


def episode_shown(alias: str) -> str:
    """SQL: the message ``alias`` passes the rule; withheld ones pass only with ``:show_rejected``."""
    return f"((:show_rejected = 1 OR {not_withheld('episode', alias)}) AND NOT {episode_expired(alias)})"


def hidden_ids(
    conn: Connection, kind: str, ids: Sequence[str], now: str, *, show_rejected: bool = False
) -> set[str]:
    """Which of the stored ``ids`` (memories or episodes) the rule hides at ``now``, for a read that names
    rows by id (a detail, a history, an export). Ids not stored are not returned: the read reports them."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {KINDS}")
    table, shown = (
        ("memory_items", memory_shown("r")) if kind == "memory" else ("episodes", episode_shown("r"))
    )
    out: set[str] = set()
    unique = list(dict.fromkeys(str(i) for i in ids))
    for lo in range(0, len(unique), 500):
        chunk = unique[lo : lo + 500]
        marks = ",".join(f":i{n}" for n in range(len(chunk)))
        params: dict[str, object] = {"now": now, "show_rejected": int(show_rejected)}
        params.update({f"i{n}": i for n, i in enumerate(chunk)})
        rows = conn.execute(f"SELECT r.id FROM {table} r WHERE r.id IN ({marks}) AND NOT {shown}", params)
        out |= {str(r[0]) for r in rows.fetchall()}
    return out
