"""WAL checkpoints held back while a sync exchange writes, so SQLite folds the WAL once, at its end.

SQLite folds the WAL into the store file (a checkpoint: each page's latest frame copied, the WAL
and then the store file synced to disk) after any commit that leaves more than
``wal_autocheckpoint`` pages (1,000) in it. An exchange that applies thousands of events writes
several times that, so it checkpointed three or four times, each with two fsyncs that wait for
the disk (5 to 30 ms each on a busy disk), and copied again the pages every batch rewrites (the
ledger's and the indexes' last pages). :func:`deferred_checkpoints` turns the automatic checkpoint
off while the exchange writes and gives the connection its threshold back when it ends; the
exchange's last commit (sync/service.py) then folds the WAL once, by SQLite's own rule: only if it
holds more than the threshold, so a small exchange costs no checkpoint it did not cost before. If
the exchange fails first, the next commit of this connection folds it the same way.

Nothing about durability changes: each commit is synced as before (the WAL is the durable copy);
the WAL only grows larger meanwhile. ``forget`` still ends with its own truncating checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from veramem_desktop.core.storage.store import Store


@contextmanager
def deferred_checkpoints(store: Store) -> Iterator[None]:
    """The block's commits leave the WAL as it is (no automatic checkpoint on this connection); the
    connection's own threshold comes back when the block ends, also when it raises, so the next commit
    folds the WAL if it passed the threshold."""
    with store.read() as conn:
        threshold = int(conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
        conn.execute("PRAGMA wal_autocheckpoint = 0").fetchall()
    try:
        yield
    finally:
        with store.read() as conn:
            conn.execute(f"PRAGMA wal_autocheckpoint = {threshold}").fetchall()
