"""Forgets and rejections carried over a restore: a backup made before a forget or a rejection brings
nothing forgotten or rejected back.

Restoring an older backup is a person's explicit act (``veramem restore --force`` when the store has
newer ledger entries, which every forget writes). What the store being replaced forgot since is read
from it first (:func:`read_record`: the ids its ledger tombstoned, the admission gate's marks and their
keys) and applied to the restored copy before it takes the store's place (:func:`reapply`): the marks
and keys are kept, and every tombstoned memory or episode still in the copy, and every episode its
marks recognise, is forgotten again, with its own tombstones in the restored ledger. Rejections
too: the rejected-value keys are kept (when both copies key them under the same secret), a memory
rejected since is rejected again, and the copy's texts holding a rejected value are withheld.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from veramem_desktop.core.curation import review
from veramem_desktop.core.errors import NotFoundError
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.storage import forget_marks, meta, rejection_rows, rejections, scope_texts
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust import admission


@dataclass
class ForgetRecord:
    """What a store forgot: tombstoned ids with their kinds, the gate's marks and the keys they use."""

    targets: list[tuple[str, str]] = field(default_factory=list)
    marks: list[tuple[str, str, str, str]] = field(default_factory=list)
    keys: list[tuple[str, bytes]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # memories a person rejected
    values: list[tuple[str | None, str, str, str, str, str, str]] = field(default_factory=list)
    rejection_key: str | None = None


def read_record(conn: Connection) -> ForgetRecord:
    """Read what the store on ``conn`` forgot (a store from before the gate's tables has no marks)."""
    has_marks = forget_marks.tables_exist(conn)
    record = ForgetRecord(
        forget_marks.forgotten_targets(conn),
        rejected=forget_marks.targets_of_op(conn, "memory.reject"),
        values=rejection_rows.all_values(conn),
        rejection_key=meta.get(conn, rejections.KEY_META),
    )
    if has_marks:
        record.marks, record.keys = forget_marks.all_marks(conn), forget_marks.all_keys(conn)
    return record


def reapply(store: Store, record: ForgetRecord) -> int:
    """Forget again, in ``store``, what ``record`` says was forgotten; returns how many forgets ran."""
    with store.atomic() as conn:
        for key_id, secret in record.keys:
            forget_marks.add_key(conn, key_id, secret)
        forget_marks.add_rows(conn, record.marks)
        device = meta.get(conn, "device_id") or "dev_local"
        present = forget_marks.present(conn, record.targets) | _recognised(conn)
    done = 0
    for target in sorted(present):
        try:
            forget_mod.forget(store, target, device=device, reason="forgotten after this backup was made")
        except NotFoundError:  # erased already with an earlier one (a memory with its episode)
            continue
        done += 1
    return done + _reapply_rejections(store, record, device)


def _reapply_rejections(store: Store, record: ForgetRecord, device: str) -> int:
    """Keep the rejected-value keys, reject again what was rejected since, withhold what holds a value."""
    with store.atomic() as conn:
        here = meta.get(conn, rejections.KEY_META)
        if here is None and record.rejection_key is not None:
            meta.add(conn, rejections.KEY_META, record.rejection_key)
            here = record.rejection_key
        if here is not None and here == record.rejection_key:
            for user, subject, predicate, scope, norm, skel, memory_id in record.values:
                rejection_rows.add_value(
                    conn,
                    user_id=user,
                    subject=subject,
                    predicate=predicate,
                    scope=scope,
                    norm_value=norm,
                    skeleton=skel,
                    memory_id=memory_id,
                )
        todo = [m for m in record.rejected if forget_marks.not_rejected(conn, m)]
    for memory_id in todo:
        review.reject(store, memory_id, device=device, reason="rejected after this backup was made")
    with store.atomic() as conn:
        for user, team in forget_marks.scopes(conn):
            for kind, texts in (("episode", scope_texts.episode_texts), ("memory", scope_texts.memory_texts)):
                rejections.withhold_if_rejected(
                    conn, kind, [(i, user, team, t) for i, t in texts(conn, user, team)]
                )
    return len(todo)


def _recognised(conn: Connection) -> set[str]:
    """Episodes of the copy that the marks recognise (the same episode under another id)."""
    if not forget_marks.any_marks(conn):
        return set()
    rows = admission.identities(conn)
    screened = admission.screen(conn, [item for _, item in rows])
    return {rows[i][0] for i in screened.forgotten}
