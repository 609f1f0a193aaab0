"""Time-varying access edges: user↔agent, agent↔resource, team membership."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from veramem_desktop.core.errors import InvalidInputError, NotFoundError
from veramem_desktop.core.storage import ledger
from veramem_desktop.core.storage.ids import new_id, now_iso
from veramem_desktop.core.storage.store import Connection, Store

KINDS = ("user_agent", "agent_resource", "team_member")
#: a grant's columns, in the order rows are read and written as plain values (replication)
GRANT_FIELDS = ("id", "kind", "subject", "object", "granted_at", "revoked_at")
#: the columns that change after a grant is made
MUTABLE_FIELDS = frozenset({"revoked_at"})
_COLUMNS = ", ".join(GRANT_FIELDS)


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
    sql = f"SELECT {_COLUMNS} FROM grants"
    if not include_revoked:
        sql += " WHERE revoked_at IS NULL"
    return [Grant(*r) for r in store.query(sql + " ORDER BY granted_at")]


# --- grants as plain rows, the same on every device (sync lands them with these) ----------


def row(conn: Connection, grant_id: str) -> dict[str, Any] | None:
    """The grant's columns by name, as stored; None if there is no such grant."""
    found = conn.execute(f"SELECT {_COLUMNS} FROM grants WHERE id = ?", (grant_id,)).fetchone()
    return None if found is None else dict(zip(GRANT_FIELDS, found, strict=True))


def exists(conn: Connection, grant_id: str) -> bool:
    return conn.execute("SELECT 1 FROM grants WHERE id = ?", (grant_id,)).fetchone() is not None


def insert_row(conn: Connection, values: dict[str, Any]) -> None:
    """Insert a grant made elsewhere, with its id and every column as given (the caller records it)."""
    conn.execute(
        f"INSERT INTO grants({_COLUMNS}) VALUES ({','.join('?' * len(GRANT_FIELDS))})",
        [values[f] for f in GRANT_FIELDS],
    )


def set_row_fields(conn: Connection, grant_id: str, changes: dict[str, Any]) -> None:
    """Set mutable columns of a grant to values decided elsewhere (the caller records it)."""
    unknown = set(changes) - MUTABLE_FIELDS
    if unknown:
        raise ValueError(f"not a mutable grant column: {sorted(unknown)}")
    sets = ", ".join(f"{name} = ?" for name in changes)
    conn.execute(f"UPDATE grants SET {sets} WHERE id = ?", [*changes.values(), grant_id])


def all_rows(store: Store) -> list[Sequence[Any]]:
    """Every grant's columns (``GRANT_FIELDS``), by id."""
    return list(store.query(f"SELECT {_COLUMNS} FROM grants ORDER BY id"))
