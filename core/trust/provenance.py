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
    stored = meta.get(conn, "provenance_key")
    if stored is not None:
        return bytes.fromhex(stored)
    key = os.urandom(32)
    meta.add_once(conn, "provenance_key", key.hex())
    kept = meta.get(conn, "provenance_key")  # this key, or the one another process added first
    assert kept is not None
    return bytes.fromhex(kept)


def provenance_of(conn: Connection, user_id: str) -> str:
    return "hmac:" + hmac.new(_key(conn), user_id.encode("utf-8"), hashlib.sha256).hexdigest()
