"""Deliberate damage, for the doctor's live probes (``veramem doctor --probes``) on a scratch store.

Each does what someone editing the file behind VeraMem's back would do, so a probe can show
that ``verify`` notices. Nothing calls these on a person's store.
"""

from __future__ import annotations

from veramem_desktop.core.storage.store import Store


def forge_commitment(store: Store, seq: int) -> None:
    """Overwrite ledger entry ``seq``'s commitment in place, as an edit of the file would."""
    with store.atomic() as conn:
        conn.execute("UPDATE ledger SET commitment = 'forged' WHERE seq = ?", (seq,))
