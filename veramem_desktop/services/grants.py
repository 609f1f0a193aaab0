"""Access grants of one open store (core/storage/grants.py): the edges that let an agent, a resource or a
team see a user's items. Granting and revoking are a person's acts (CLI and TUI)."""

from __future__ import annotations

from veramem_desktop.core.storage import grants as grants_mod
from veramem_desktop.core.storage.store import Store


class Grants:
    """The grants of one open store, each change recorded as made on ``device``."""

    def __init__(self, store: Store, *, device: str) -> None:
        self.store = store
        self.device = device

    def grant(self, kind: str, subject: str, object: str) -> grants_mod.Grant:
        """Add an access edge: user_agent (user → agent), agent_resource (agent → agent/resource), team_member (user → team)."""
        with self.store.atomic() as conn:
            return grants_mod.grant(conn, kind, subject, object, device=self.device)

    def revoke(self, kind: str, subject: str, object: str) -> int:
        """End an access edge now; items it exposed are hidden at once, retroactively."""
        with self.store.atomic() as conn:
            return grants_mod.revoke(conn, kind, subject, object, device=self.device)

    def list_grants(self, *, include_revoked: bool = False) -> list[grants_mod.Grant]:
        """Every grant in force (and the revoked ones too with ``include_revoked``)."""
        return grants_mod.list_grants(self.store, include_revoked=include_revoked)
