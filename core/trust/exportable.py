"""What an export may write: the visibility rule (core/storage/visibility.py) for records that gather rows
and texts, such as a training record or a trace.

An export is read by whatever the person hands it to, so it takes the strictest reading of the rule:
a record is left out when any memory or message it names is hidden now (rejected, withheld, expired),
or when any of its texts holds a value a person rejected in its scope (a rejection keeps no text, so
an export must not be where its words survive). Forgotten rows, and the traces that named them, are
erased by ``forget`` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from veramem_desktop.core.storage import rejections, visibility
from veramem_desktop.core.storage.store import Connection


def blocked(
    conn: Connection,
    *,
    user_id: str | None,
    team_id: str | None = None,
    memory_ids: Sequence[str] = (),
    episode_ids: Sequence[str] = (),
    texts: Sequence[str] = (),
    now: str,
) -> bool:
    """Whether a record holding these rows and texts must be left out of an export at ``now``."""
    if memory_ids and visibility.hidden_ids(conn, "memory", memory_ids, now):
        return True
    if episode_ids and visibility.hidden_ids(conn, "episode", episode_ids, now):
        return True
    wanted = [t for t in texts if t]
    return bool(wanted) and any(rejections.holding(conn, user_id=user_id, team_id=team_id, texts=wanted))
