"""Forgets carried over a restore: a backup made before a forget brings nothing forgotten back.

Restoring an older backup is a person's explicit act (``veramem restore --force`` when the store has
newer ledger entries, which every forget writes). What the store being replaced forgot since is read
from it first (:func:`read_record`: the ids its ledger tombstoned, the admission gate's marks and their
keys) and applied to the restored copy before it takes the store's place (:func:`reapply`): the marks
and keys are kept, and every tombstoned memory or episode still in the copy, and every episode its
marks recognise, is forgotten again, with its own tombstones in the restored ledger.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from veramem_desktop.core.errors import NotFoundError
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.storage import forget_marks, meta
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust import admission


@dataclass
class ForgetRecord:
    """What a store forgot: tombstoned ids with their kinds, the gate's marks and the keys they use."""

    targets: list[tuple[str, str]] = field(default_factory=list)
    marks: list[tuple[str, str, str, str]] = field(default_factory=list)
    keys: list[tuple[str, bytes]] = field(default_factory=list)


def read_record(conn: Connection) -> ForgetRecord:
    """Read what the store on ``conn`` forgot (a store from before the gate's tables has no marks)."""
    has_marks = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'forget_marks'"
    ).fetchone()
    if has_marks is None:
        return ForgetRecord(forget_marks.forgotten_targets(conn))
    return ForgetRecord(
        forget_marks.forgotten_targets(conn), forget_marks.all_marks(conn), forget_marks.all_keys(conn)
    )


def reapply(store: Store, record: ForgetRecord) -> int:
    """Forget again, in ``store``, what ``record`` says was forgotten; returns how many forgets ran."""
    with store.atomic() as conn:
        for key_id, secret in record.keys:
            forget_marks.add_key(conn, key_id, secret)
        forget_marks.add_rows(conn, record.marks)
        device = meta.get(conn, "device_id") or "dev_local"
        present = _present(conn, record.targets) | _recognised(conn)
    done = 0
    for target in sorted(present):
        try:
            forget_mod.forget(store, target, device=device, reason="forgotten after this backup was made")
        except NotFoundError:  # erased already with an earlier one (a memory with its episode)
            continue
        done += 1
    return done


def _present(conn: Connection, targets: list[tuple[str, str]]) -> set[str]:
    table = {"memory": "memory_items", "episode": "episodes"}
    return {
        target
        for target, kind in targets
        if conn.execute(f"SELECT 1 FROM {table[kind]} WHERE id = ?", (target,)).fetchone() is not None
    }


def _recognised(conn: Connection) -> set[str]:
    """Episodes of the copy that the marks recognise (the same episode under another id)."""
    if not forget_marks.any_marks(conn):
        return set()
    rows = admission.identities(conn)
    screened = admission.screen(conn, [item for _, item in rows])
    return {rows[i][0] for i in screened.forgotten}
