"""What becomes of memories after they are written, for one open store: pins, expiry, erasure,
consent to share and sharing, the memories about to expire, and the gate on what an agent may act on.

Erasing (a forget or an expiry) leaves the neighbours' context vectors holding the erased
words, so each is followed by rebuilding those vectors from what remains. The store (and so its
device id), the embedder, the search engine and the LLM are asked for only when a call needs them
(``Memory`` resolves them on first use: finding a model can take a while), so a request is checked
before anything opens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from veramem_desktop.core.curation import reads
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.lifecycle import expiry as expiry_mod
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.lifecycle import redaction
from veramem_desktop.core.lifecycle.sharing import Sharer, ShareReport, may_act_on
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import SearchEngine
from veramem_desktop.core.storage import item_states
from veramem_desktop.core.storage import items as items_mod
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.actor import Actor
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.write.ingest import recompute_context

from ..config import IdentitySettings
from .reading import caller_for, reader_for


@dataclass(eq=False)
class Curation:
    """Pins, expiry, erasure and sharing of one store, recorded as made on ``device`` through ``channel``."""

    store: Callable[[], Store]
    _: KW_ONLY
    identity: IdentitySettings
    device: Callable[[], str]
    channel: str
    embedder: Callable[[], Embedder]
    engine: Callable[[], SearchEngine]
    llm: Callable[[], LLM]

    # ------------------------------------------------------------ pins
    def set_pinned(self, memory_id: str, pinned: bool) -> MemoryItem:
        """Pin or unpin a memory (a pinned one is never archived, fused, moved or expired). A memory whose
        expiry has passed is gone for every read already (the sweep only erases it later), so it is not
        found here either: a pin keeps a memory, it never brings one back."""
        store = self.store()
        reads.require_memory(store, Caller.person(""), memory_id)
        item = items_mod.get(store, memory_id)
        if item.pinned == pinned:
            return item
        device = self.device()
        with store.atomic() as conn:
            updated = items_mod.set_fields(
                conn,
                memory_id,
                device=device,
                op="memory.pin" if pinned else "memory.unpin",
                pinned=pinned,
            )
        expiry_mod.refresh_next(store, datetime.now(UTC))
        return updated

    # ------------------------------------------------------------ expiry and erasure
    def expire_if_due(self, now: datetime | None = None) -> expiry_mod.ExpiryReport | None:
        """Erase what has expired when the earliest recorded expiry has passed (one meta read otherwise)."""
        moment = now or datetime.now(UTC)
        if not expiry_mod.due(self.store(), moment):
            return None
        return self.expire(moment)

    def expire(self, now: datetime | None = None) -> expiry_mod.ExpiryReport:
        """Erase every memory and message whose time has passed, like a forget, as the system."""
        store = self.store()
        with store.acting.scope(Actor.system("expiry", self.channel), system=True):
            report = expiry_mod.expire(store, now or datetime.now(UTC), device=self.device())
        if report.stale_context:
            recompute_context(store, self.embedder(), sorted(set(report.stale_context)))
        return report

    def expiring(
        self,
        within: timedelta = timedelta(days=7),
        *,
        user_id: str | None = None,
        now: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Active memories (of ``user_id``, or anyone's) that expire within ``within``, soonest first."""
        return expiry_mod.upcoming(self.store(), now or datetime.now(UTC), within, user_id=user_id)

    def forget(
        self, target: str, *, caller: Caller | None = None, reach: str = "session", redact: bool = False
    ) -> forget_mod.ForgetReport:
        """Erase a memory (every version), an episode, or ``user:<id>`` (``target``), and all that was built
        from them, as ``caller`` (the person by default) may: the person may erase anything, an agent caller
        only what it may see and its user owns (core/curation/reads.py). ``reach``: where the messages and memories that restate it are
        looked for and erased with it (session, everywhere or none; core/lifecycle/restatements.py).
        ``redact``: a memory's messages are replaced by the sentences that do not state it, and the other
        memories they hold stay (core/lifecycle/redaction.py)."""
        reader = reader_for(self.identity, caller)
        store = self.store()
        report = reads.forget(store, reader, target, device=self.device(), reach=reach, redact=redact)
        if report.redacted:
            redaction.index_new(store, self.embedder(), report.redacted)
            report.stale_context = sorted({*report.stale_context, *report.redacted})
        # The neighbours' context vectors held the erased words; rebuild them from what remains.
        recompute_context(store, self.embedder(), report.stale_context)
        return report

    # ------------------------------------------------------------ consent, sharing and the action gate
    def mark_shareable(self, memory_id: str, shareable: bool = True) -> MemoryItem:
        """The owner's consent to share one memory (a person's act)."""
        store, device = self.store(), self.device()
        with store.atomic() as conn:
            return items_mod.set_fields(
                conn, memory_id, device=device, op="memory.consent", shareable=shareable
            )

    def may_act_on(self, item: MemoryItem) -> bool:
        """The one action gate, with ``item``'s open conflicts read from the store (a partner that is
        active and not rejected keeps the conflict open)."""
        partners = [c for c in item.metadata.get("conflicts_with", []) if isinstance(c, str)]
        return may_act_on(item, open_conflict=item_states.any_current(self.store(), partners))

    def share(
        self,
        *,
        user_id: str | None = None,
        visibility: str = "public",
        team_id: str | None = None,
        tau: float = 0.5,
        team_policy: bool = False,
        only: list[str] | None = None,
    ) -> ShareReport:
        """Share ``user_id``'s (the settings' user by default) eligible experiences and world facts, abstracted
        and gated, as unendorsed pool items (to a team, named, or to everyone: checked before anything opens)."""
        owner = caller_for(self.identity, user_id).user_id
        check_share_target(visibility, team_id)
        llm = self.llm()
        return Sharer(self.engine(), self.embedder(), llm, device=self.device()).share(
            owner,
            visibility=visibility,
            team_id=team_id,
            tau=tau,
            team_policy=team_policy,
            only=only,
        )


def check_share_target(visibility: str, team_id: str | None) -> None:
    """InvalidInputError unless shared items go to a team (named) or to everyone (before anything opens)."""
    if visibility not in ("team", "public"):
        raise InvalidInputError("Shared items are visible to a team or to everyone: use team or public.")
    if visibility == "team" and not team_id:
        raise InvalidInputError("Sharing with a team needs the team id.")
