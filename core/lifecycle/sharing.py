"""Sharing experiences safely: eligibility → abstraction into slots → secret, PII and canary gate →
independent reconciliation against the shared pool → an unendorsed shared copy whose
provenance is an HMAC of the contributor, never their id.

Anything refused stays local; the refusal reason (a code, never content) is kept on
the item and logged.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.lifecycle import abstraction
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import SearchEngine
from veramem_desktop.core.storage import derivations, index, item_scopes, items
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.trust.action_gate import may_act, memory_state
from veramem_desktop.core.trust.pii import canary_leaks, find_pii
from veramem_desktop.core.trust.provenance import provenance_of
from veramem_desktop.core.trust.secret_scan import SecretScanner
from veramem_desktop.core.vocabulary import Authority, Kind, Status, Trust

log = logging.getLogger("veramem.share")

SHAREABLE_KINDS = (Kind.EXPERIENCE, Kind.FACT)
POOL_DUPLICATE_COSINE = 0.92


@dataclass
class ShareReport:
    shared: list[dict[str, Any]] = field(default_factory=list)
    merged: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def may_act_on(item: MemoryItem, *, open_conflict: bool = False) -> bool:
    """The action gate (core/trust/action_gate.py) for a stored memory: only an active, unrejected memory that the
    user or system stated, in no open conflict (``open_conflict``, which the caller finds), may authorise
    an action."""
    return may_act(
        item.authority, memory_state(trust=item.trust, status=item.status, open_conflict=open_conflict)
    )


def _about_the_user(item: MemoryItem) -> bool:
    return (item.subject or "").lower() == "user" or item.text.lower().startswith(("user ", "user's"))


def eligibility(item: MemoryItem, *, tau: float, team_policy: bool) -> str | None:
    """Why ``item`` may not be shared, or None when it may."""
    if item.kind == Kind.PREFERENCE:
        return "preferences are never shared"
    if item.kind not in SHAREABLE_KINDS:
        return f"a {item.kind} is not shareable (only experiences and facts about the world)"
    if item.kind == Kind.FACT and _about_the_user(item):
        return "a fact about the user is not a fact about the world"
    if not (item.shareable or team_policy):
        return "the owner has not consented (not marked shareable, no team policy)"
    if item.status != Status.ACTIVE or item.trust == Trust.REJECTED:
        return f"the item is {item.status}/{item.trust}"
    if item.utility < tau:
        return f"utility {item.utility:.2f} is below the sharing threshold {tau:.2f}"
    return None


def gate(
    text: str, private_texts: list[str], *, scanner: SecretScanner | None = None, source: str | None = None
) -> str | None:
    """The deterministic gate: secrets (in the text to share and in the memory it came from, since a
    paraphrased secret is still one), personal data, then the canary check. The reason names the kinds."""
    scanner = scanner or SecretScanner()
    if not scanner.ready:
        return "secret detection is unavailable (detect-secrets found no plugins), so nothing is shared"
    secrets = scanner.find(text if source is None else f"{text}\n{source}")
    if secrets:
        return "secret found: " + ", ".join(secrets)
    pii = find_pii(text)
    if pii:
        return "personal data found: " + ", ".join(pii)
    leaks = canary_leaks(text, private_texts)
    if leaks:
        return f"{len(leaks)} run(s) of words from the owner's private memories would leak"
    return None


class Sharer:
    def __init__(self, engine: SearchEngine, embedder: Embedder, llm: LLM, *, device: str) -> None:
        self.engine = engine
        self.store = engine.store
        self.embedder = embedder
        self.llm = llm
        self.device = device

    def share(
        self,
        user_id: str,
        *,
        visibility: str = "public",
        team_id: str | None = None,
        tau: float = 0.5,
        team_policy: bool = False,
        only: list[str] | None = None,
    ) -> ShareReport:
        report = ShareReport()
        mine = item_scopes.own_active(self.store, user_id)
        candidates = [m for m in mine if only is None or m.id in only]
        scanner: SecretScanner | None = None
        for item in candidates:
            reason = eligibility(item, tau=tau, team_policy=team_policy)
            if reason is None:
                scanner = scanner or SecretScanner()
                reason = self._share_one(item, mine, user_id, visibility, team_id, report, scanner)
            if reason is not None:
                report.refused.append({"id": item.id, "reason": reason})
                log.info("share refused for %s: %s", item.id, reason.split(":")[0])
        return report

    def _share_one(
        self,
        item: MemoryItem,
        mine: list[MemoryItem],
        user_id: str,
        visibility: str,
        team_id: str | None,
        report: ShareReport,
        scanner: SecretScanner,
    ) -> str | None:
        try:
            abstract = self.llm.abstract_experience(item.text).value
        except ModelError as exc:
            return f"abstraction failed ({exc.message})"
        if abstraction.problems(abstract, item.text):  # the reason names no value: it is logged
            return "abstraction refused: a placeholder does not replace a whole name, number or date"
        sources = derivations.source_ids(self.store, item.id)
        private = [m.text for m in mine if m.id != item.id and m.id not in sources]
        refused = gate(abstract, private, scanner=scanner, source=item.text)
        if refused is not None:
            return refused
        vector = self.embedder.embed([abstract])[0]
        pool_ids = item_scopes.shared_pool(self.store, visibility, team_id)
        cache = self.engine.caches["memory"]
        cache.refresh(self.store)
        best = cache.top(vector, cache.positions(pool_ids), 1) if pool_ids else []
        with self.store.atomic() as conn:
            prov = provenance_of(conn, user_id)
            if best and best[0][1] > POOL_DUPLICATE_COSINE:
                # Independent reconciliation: the pool already holds this experience.
                derivations.add(conn, best[0][0], [item.id])
                report.merged.append({"id": item.id, "pool_item": best[0][0], "cosine": round(best[0][1], 3)})
                return None
            shared = items.insert(
                conn,
                MemoryItem(
                    id="",
                    kind=Kind.EXPERIENCE,
                    text=abstract,
                    authority=Authority.UNENDORSED,
                    user_id=None,
                    team_id=team_id,
                    visibility=visibility,
                    source="shared",
                    provenance=prov,
                    confidence=0.5,
                    metadata={"shared": True},
                ),
                [],
                device=self.device,
                op="memory.share",
            )
            derivations.add_first(conn, shared.id, item.id)
            index.index_memory(conn, self.embedder.name, shared.id, abstract, vector)
        report.shared.append({"id": item.id, "shared_id": shared.id, "text": abstract})
        return None
