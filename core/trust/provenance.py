"""Provenance of shared items: an HMAC of the contributor's user id under a per-store secret.

It lets a user's contributions be found (to revoke or forget them) without the shared
item naming the user.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from veramem_desktop.core.storage import meta
from veramem_desktop.core.storage.store import Connection


def _key(conn: Connection) -> bytes:
    row = conn.execute("SELECT value FROM meta WHERE key = 'provenance_key'").fetchone()
    if row is not None:
        return bytes.fromhex(row[0])
    key = os.urandom(32)
    meta.add_once(conn, "provenance_key", key.hex())
    return bytes.fromhex(conn.execute("SELECT value FROM meta WHERE key = 'provenance_key'").fetchone()[0])


def provenance_of(conn: Connection, user_id: str) -> str:
    return "hmac:" + hmac.new(_key(conn), user_id.encode("utf-8"), hashlib.sha256).hexdigest()
