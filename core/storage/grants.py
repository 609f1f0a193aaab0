"""Time-varying access edges: user↔agent, agent↔resource, team membership."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from veramem_desktop.core.errors import InvalidInputError, NotFoundError
from veramem_desktop.core.storage import ledger
from veramem_desktop.core.storage.ids import new_id, now_iso
from veramem_desktop.core.storage.store import Connection, Store

KINDS = ("user_agent", "agent_resource", "team_member")


@dataclass(frozen=True)
class Grant:
    id: str
    kind: str
    subject: str
    object: str
    granted_at: str
    revoked_at: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check(kind: str, subject: str, obj: str) -> None:
    if kind not in KINDS:
        raise InvalidInputError(f"Unknown grant kind {kind!r}; use one of {', '.join(KINDS)}.")
    if not subject or not obj:
        raise InvalidInputError("A grant needs both a subject and an object.")


def grant(
    conn: Connection, kind: str, subject: str, obj: str, *, device: str, at: str | None = None
) -> Grant:
    _check(kind, subject, obj)
    g = Grant(new_id("gr"), kind, subject, obj, at or now_iso(), None)
    conn.execute(
        "INSERT INTO grants(id, kind, subject, object, granted_at) VALUES (?,?,?,?,?)",
        (g.id, g.kind, g.subject, g.object, g.granted_at),
    )
    ledger.append(
        conn,
        op="grant.add",
        target_kind="grant",
        target_id=g.id,
        commitment_hex=ledger.commit_to(conn, g.id, [kind, subject, obj]),
        device=device,
        details={"kind": kind},
    )
    return g


def revoke(conn: Connection, kind: str, subject: str, obj: str, *, device: str, at: str | None = None) -> int:
    _check(kind, subject, obj)
    moment = at or now_iso()
    rows = conn.execute(
        "SELECT id FROM grants WHERE kind = ? AND subject = ? AND object = ? AND revoked_at IS NULL",
        (kind, subject, obj),
    ).fetchall()
    if not rows:
        raise NotFoundError(f"No current {kind} grant from {subject} to {obj}.")
    for (gid,) in rows:
        conn.execute("UPDATE grants SET revoked_at = ? WHERE id = ?", (moment, gid))
        ledger.append(
            conn,
            op="grant.revoke",
            target_kind="grant",
            target_id=gid,
            commitment_hex=ledger.commit_to(conn, gid, [kind, subject, obj, moment]),
            device=device,
        )
    return len(rows)


def list_grants(store: Store, *, include_revoked: bool = False) -> list[Grant]:
    sql = "SELECT id, kind, subject, object, granted_at, revoked_at FROM grants"
    if not include_revoked:
        sql += " WHERE revoked_at IS NULL"
    return [Grant(*r) for r in store.query(sql + " ORDER BY granted_at")]
