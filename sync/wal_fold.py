"""One WAL checkpoint per sync exchange instead of one each time the WAL passes SQLite's threshold.

SQLite folds the WAL into the store file (a checkpoint: each page's latest frame copied, the WAL
and then the store file synced to disk) after any commit that leaves more than
``wal_autocheckpoint`` pages (1,000) in it. An exchange that applies thousands of events writes
several times that, so it checkpointed three or four times, each with two fsyncs that wait for
the disk (5 to 30 ms each on a busy disk), and copied again the pages every batch rewrites (the
ledger's and the indexes' last pages). :func:`one_checkpoint` turns the automatic checkpoint off
for the exchange and folds the WAL once at its end (PASSIVE, as the automatic one is: it never
waits for other processes' readers, and what it cannot fold now a later checkpoint folds).

Nothing about durability changes: each commit is synced as before (the WAL is the durable copy);
the WAL only grows larger meanwhile. ``forget`` still ends with its own truncating checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from veramem_desktop.core.storage.store import Store


@contextmanager
def one_checkpoint(store: Store) -> Iterator[None]:
    """The block runs without automatic checkpoints on this connection; the WAL is folded once when it
    ends (also when it raises), and the connection's own threshold comes back."""
    with store.read() as conn:
        threshold = int(conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
        conn.execute("PRAGMA wal_autocheckpoint = 0")
    try:
        yield
    finally:
        with store.read() as conn:
            conn.execute(f"PRAGMA wal_autocheckpoint = {threshold}").fetchall()
            if threshold > 0:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
