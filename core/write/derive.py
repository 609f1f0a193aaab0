"""The write path after the episodes are stored: extract → verify quotes → authority →
dates → rejected values → reconcile with same-scope neighbours → guards → versions.

One extraction call per batch. Authority always comes from the role of the
message a quote was found in, never from a model. Every change is in the ledger.

This module plans: it checks each candidate's quote against the message it cites, takes
authority from that message's role, resolves dates, refuses rejected values and asks for a
decision against the nearest memories of the same scope. The batch guards
(core/write/guards.py) then see the plan as a whole, and core/write/versions.py applies it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import LLM, Candidate, Decision, Neighbour
from veramem_desktop.core.protocols import Embedder, Vectors
from veramem_desktop.core.storage import item_scopes, items, rejection_rows, rejections
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.ids import parse_iso
from veramem_desktop.core.storage.items import ROLE_AUTHORITY, Evidence, MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.core.text.relative_dates import resolve_relative_dates
from veramem_desktop.core.text.terms import content_terms
from veramem_desktop.core.trust.quotes import locate
from veramem_desktop.core.write import (
    by_meaning,
    correction_forms,
    correction_targets,
    decisions,
    ends,
    guards,
    retraction_targets,
    same_add,
    versions,
)
from veramem_desktop.core.write import context as write_context
from veramem_desktop.core.write.casing import HistoryCasing
from veramem_desktop.core.write.plan import Planned
from veramem_desktop.core.write.results import AddResult

#: Most candidates derived from one add; the rest of a huge message stays searchable as an episode.
MAX_CANDIDATES = 200
NEIGHBOURS = 5
#: a candidate this close to a rejected memory in scope (same subject) paraphrases it: stored, held for review
RESEMBLES_COSINE = 0.9


#: a candidate whose quote was found: (candidate, the episode it cites, evidence, authority, text)
_Checked = tuple[Candidate, Episode, Evidence, str, str]


def attributed(text: str, role: str, name: str | None) -> str:
    """Source-attributed wording for lower-authority claims."""
    if role in ("user", "system"):
        return text
    who = {"assistant": "the assistant", "tool": "tool", "document": "document", "shared": "a shared source"}[
        role
    ]
    if name and role != "shared":
        who = f"{who} {name}"
    prefix = f"According to {who}: "
    return text if text.lower().startswith("according to") else prefix + text


def keyed_to_speaker(cand: Candidate, ep: Episode) -> Candidate:
    """A named person's first person is theirs: "I live in Boston" from Mel in a conversation of several
    people keys Mel's home, never the user's, so it neither supersedes nor restates what the user (or
    another speaker) said. Whatever extracted it: the key is the engine's, from the message's speaker."""
    if ep.role != "user" or not ep.source_name or (cand.subject or "").casefold() != "user":
        return cand
    return replace(cand, subject=ep.source_name)


class Writer:
    def __init__(
        self,
        store: Store,
        vectors: VectorCache,
        embedder: Embedder,
        llm: LLM,
        *,
        device: str,
        casing: HistoryCasing | None = None,
    ) -> None:
        """``vectors``: the memories' vector cache the neighbours are found in, the one the composition root
        shares with search, the linker and consolidation. Relative dates in a memory's text are resolved
        against its message's time (core/text/relative_dates.py). ``casing``: how the person's history spells
        names (core/write/casing.py), shared by the writers of one open store so it is learnt once."""
        self.store = store
        self.vectors = vectors
        self.embedder = embedder
        self.llm = llm
        self.device = device
        #: what an extraction reads: each message with names typed in lower case spelt as its history does
        self.casing = casing if casing is not None else HistoryCasing(store)
        self._scoped: dict[tuple[Any, ...], Any] = {}

    # ------------------------------------------------------------ plan
    def derive(
        self,
        episodes: Sequence[Episode],
        *,
        context: Sequence[Episode] = (),
        candidates: Sequence[Candidate] | None = None,
    ) -> AddResult:
        """Derive memories from ``episodes``. ``candidates``: already extracted from them (the bulk
        import extracts in calls of its own); no extraction call is made then."""
        out = AddResult()
        if not episodes:
            return out
        self._scoped = {}  # per-scope reads shared by this derive's candidates
        if candidates is None:
            if (
                not context
            ):  # the session's earlier turns, so the model can resolve references (reference only)
                context = write_context.preceding_turns(
                    self.store, episodes, self.llm.capabilities.context_tokens
                )
            try:
                candidates = self.llm.extract(
                    self.casing.messages(episodes), self.casing.messages(context)
                ).unwrap(out.notices)
            except ModelError as exc:
                out.notices.append(
                    f"extraction failed ({exc.message}); the episodes are stored and searchable"
                )
                return out
        candidates = list(candidates)
        if len(candidates) > MAX_CANDIDATES:
            out.notices.append(
                f"only the first {MAX_CANDIDATES} of {len(candidates)} candidate memories were derived; "
                "every episode is stored whole and searchable"
            )
            candidates = candidates[:MAX_CANDIDATES]
        checked = self._check_quotes(candidates, episodes, out)
        if not checked:
            return out
        planned = self._plan(checked, out)
        recorder = decisions.Recorder(
            planned, episodes, context
        )  # keeps what was proposed, before the guards
        guards.pair_delete_add(planned)
        for plan in planned:
            guards.guard_duplicate(plan)
        versions.apply(
            self.store, planned, out, recorder, embedder_name=self.embedder.name, device=self.device
        )
        return out

    def _check_quotes(
        self, candidates: list[Candidate], episodes: Sequence[Episode], out: AddResult
    ) -> list[_Checked]:
        """The candidates whose quote is found in the message of this add they cite, with their evidence,
        the authority of that message's role, their text (dates resolved, attributed) and a named
        speaker's key (:func:`keyed_to_speaker`); the others go to ``out.rejected`` with the reason."""
        by_id = {e.id: e for e in episodes}
        checked: list[_Checked] = []
        for cand in candidates:
            ep = by_id.get(cand.message_id)
            if ep is None:
                out.rejected.append(
                    {
                        "text": cand.text,
                        "quote": cand.quote,
                        "reason": f"cites message {cand.message_id!r}, which is not part of this add",
                    }
                )
                continue
            match = locate(ep.content, cand.quote)
            if match is None:
                out.rejected.append(
                    {
                        "text": cand.text,
                        "quote": cand.quote,
                        "episode_id": ep.id,
                        "reason": "its quote was not found in the message it cites",
                    }
                )
                continue
            authority = ROLE_AUTHORITY[ep.role]
            text = cand.text.strip() or ep.content[match.start : match.end]
            text = resolve_relative_dates(text, parse_iso(ep.event_time))
            text = attributed(text, ep.role, ep.source_name)
            cand = keyed_to_speaker(cand, ep)
            evidence = Evidence(
                ep.id, ep.content[match.start : match.end], match.start, match.end, match.score, ep.role
            )
            checked.append((cand, ep, evidence, authority, text))
        return checked

    def _plan(self, checked: list[_Checked], out: AddResult) -> list[Planned]:
        """Each checked candidate not restating a rejected value, with its neighbours in scope and the
        decision taken against them (the model's wording re-attributed, never its authority). A
        candidate that corrects a stored memory is planned as its new version first
        (core/write/correction_targets.py), so the checks below see the corrected value; a bare value that
        corrects no one memory ("I meant Maria" after "My partner is Anna. I moved to Lisbon.") is not
        planned at all: alone it states nothing, and it stays in the message, with a notice."""
        vectors = self.embedder.embed([t for *_, t in checked])
        planned: list[Planned] = []
        for (said, ep, evidence, authority, text), vec in zip(checked, vectors, strict=True):
            cand = by_meaning.keyed(said, vec, self.embedder)  # no attribute named: by its meaning
            # the stored memories, and those planned earlier in this add (core/write/same_add.py)
            pool = partial(same_add.pool, partial(self._pool, ep, cand, vec), planned, ep, vec)
            recent = partial(same_add.recent, partial(self._recent, ep), planned, ep, vec)
            corrected = correction_targets.correct(cand, text, ep, pool, recent)
            if corrected is None and _only_the_bare_value(cand.quote, text):
                out.notices.append(
                    f"{cand.quote!r} corrects a value, but which stored memory it corrects is not clear; it "
                    "stays in the message only. Say the whole corrected statement to correct it"
                )
                continue
            if corrected is not None:
                cand, text = corrected.candidate, corrected.candidate.text
                vec = self.embedder.embed([text])[0]
            if self._restates_rejected(ep, cand, text, out):
                continue
            resembles = self._resembles_rejected(ep, cand, vec)
            neighbours = self._neighbours(ep, cand, vec)
            if corrected is not None:
                if corrected.target.id not in {m.id for m, _ in neighbours}:
                    neighbours.append((corrected.target, corrected.cosine))
                decision = corrected.decision
            else:
                cand, decision, apart = ends.reconciled(cand, text, ep, pool, neighbours, self._decided, out)
                if apart is not None and not same_add.revising(apart.target.id, planned):
                    # the retraction its sentence makes, planned beside what the candidate says
                    near = [(apart.target, apart.cosine)]
                    revises = same_add.revised(apart.target.id, planned)
                    planned.append(
                        Planned(
                            cand, ep, evidence, authority, text, vec, near, apart.decision, revises=revises
                        )
                    )
            final = text
            if decision.text and decision.text.strip():
                final = self._reworded(decision.text, ep) if corrected is None else decision.text
            planned.append(
                Planned(
                    cand,
                    ep,
                    evidence,
                    authority,
                    final,
                    vec,
                    neighbours,
                    decision,
                    resembles=resembles,
                    corrects=corrected.wrong if corrected is not None and not corrected.change else None,
                    revises=same_add.revised(decision.target_id, planned),
                )
            )
        return planned

    def _restates_rejected(self, ep: Episode, cand: Candidate, text: str, out: AddResult) -> bool:
        """Whether ``cand`` restates a value rejected in its scope (then reported in ``out.rejected``)."""
        with self.store.read() as conn:
            if not self._rejections_in_scope(ep) or not rejections.is_rejected(conn, ep, cand, text):
                return False
        out.rejected.append(
            {
                "text": text,
                "episode_id": ep.id,
                "reason": "this value was rejected before for the same subject; it cannot return",
            }
        )
        return True

    def _decided(
        self, cand: Candidate, text: str, neighbours: list[tuple[MemoryItem, float]], out: AddResult
    ) -> Decision:
        """Reconciliation's decision against the neighbours (by the model, or the rule-based reconciler)."""
        offered = [
            Neighbour(m.id, m.text, cos, m.authority, m.kind, m.subject, m.predicate, m.value)
            for m, cos in neighbours
        ]
        try:
            # With nothing similar in scope there is nothing to reconcile: no model call.
            decision = (
                self.llm.reconcile(replace(cand, text=text), offered).unwrap(out.notices)
                if offered
                else Decision("ADD", reason="nothing stored says this")
            )
        except ModelError as exc:
            out.notices.append(f"reconciliation failed ({exc.message}); kept as a new memory")
            decision = Decision("ADD", reason="reconciliation failed")
        if decision.op != "ADD" and decision.target_id not in {m.id for m, _ in neighbours}:
            decision = Decision(
                "ADD", reason=f"the model named {decision.target_id!r}, which was not offered"
            )
        target = next((m for m, _ in neighbours if m.id == decision.target_id), None)
        if decision.op == "DELETE" and target is not None and retraction_targets.other_person(text, target):
            decision = Decision("ADD", reason=retraction_targets.OTHER_PERSON)
        return decision

    def _reworded(self, model_text: str, ep: Episode) -> str:
        """The model's rewording of a memory: attribution and date resolution are ours to apply, never its."""
        final = model_text.strip()
        final = resolve_relative_dates(final, parse_iso(ep.event_time))
        return attributed(final, ep.role, ep.source_name)

    def _resembles_rejected(self, ep: Episode, cand: Candidate, vec: Vectors) -> str | None:
        """The rejected memory of the same scope that ``cand`` paraphrases (close in meaning, and not
        about a different subject), or None."""
        rows = self._once(
            ("rejected memories", ep.user_id, ep.team_id),
            lambda: item_scopes.rejected_keys(self.store, ep.user_id, ep.team_id),
        )
        if not rows:
            return None
        cache = self.vectors
        cache.refresh(self.store)
        for mid, subject, predicate in rows:
            if cand.subject and subject and (cand.subject, cand.predicate) != (subject, predicate):
                continue
            other = cache.vector(mid)
            if other is not None and float(other @ vec) > RESEMBLES_COSINE:
                return str(mid)
        return None

    def _neighbours(self, ep: Episode, cand: Candidate, vec: Vectors) -> list[tuple[MemoryItem, float]]:
        """Top-k active memories in the same scope (same user and team) only, plus same-key memories."""
        return self._nearest(ep, cand, vec, NEIGHBOURS)

    def _nearest(self, ep: Episode, cand: Candidate, vec: Vectors, n: int) -> list[tuple[MemoryItem, float]]:
        """The ``n`` active memories of the scope nearest to ``vec``, plus those with the candidate's key."""
        cache = self.vectors
        allowed = self._once(("scope", ep.user_id, ep.team_id), lambda: self._scope_positions(ep))
        found = dict(cache.top(vec, allowed, n)) if allowed.size else {}
        if cand.subject and cand.predicate:
            for mid in item_scopes.current_ids_with_key(
                self.store, ep.user_id, ep.team_id, cand.subject, cand.predicate
            ):
                if mid not in found:
                    other = cache.vector(mid)
                    found[mid] = float(other @ vec) if other is not None else 0.0
        rows = items.get_many(self.store, list(found))
        return sorted(((rows[i], c) for i, c in found.items() if i in rows), key=lambda p: -p[1])

    def _pool(self, ep: Episode, cand: Candidate, vec: Vectors) -> list[tuple[MemoryItem, float]]:
        """The memories a correction may concern: the nearest of the scope by meaning, and those with
        the candidate's key (read only when a candidate reads as a correction)."""
        return list(
            self._once(("pool", id(cand)), lambda: self._nearest(ep, cand, vec, correction_targets.POOL))
        )

    def _recent(self, ep: Episode) -> list[MemoryItem]:
        """The newest current memories of the episode's scope, newest first (ids grow with time)."""

        def load() -> list[MemoryItem]:
            ids = sorted(item_scopes.current_ids_in_scope(self.store, ep.user_id, ep.team_id))[
                -correction_targets.POOL :
            ]
            rows = items.get_many(self.store, ids)
            return [rows[i] for i in reversed(ids) if i in rows]

        return list(self._once(("recent", ep.user_id, ep.team_id), load))

    def _once(self, key: tuple[Any, ...], load: Callable[[], Any]) -> Any:
        """``load()``, read once per derive: nothing is written while its candidates are planned."""
        if key not in self._scoped:
            self._scoped[key] = load()
        return self._scoped[key]

    def _rejections_in_scope(self, ep: Episode) -> bool:
        """Whether anything was ever rejected in the episode's scope (else no candidate can restate it)."""
        scope = rejections.scope_of(ep.user_id, ep.team_id)
        return bool(
            self._once(
                ("rejections", scope),
                lambda: rejection_rows.any_in_scope(self.store, scope),
            )
        )

    def _scope_positions(self, ep: Episode) -> Any:
        """The memory cache's positions of the active memories of the episode's scope (user and team)."""
        scope_ids = item_scopes.current_ids_in_scope(self.store, ep.user_id, ep.team_id)
        cache = self.vectors
        cache.refresh(self.store)
        return cache.positions(scope_ids)


def _only_the_bare_value(quote: str, text: str) -> bool:
    """Whether a candidate is a bare correction ("Sorry, I meant Maria.") worded as nothing more: a model
    that read the conversation and wrote "User's partner is Maria." says more, and is kept."""
    said = set(content_terms(quote)) | {"user"}
    return correction_forms.bare_only(quote) and set(content_terms(text)) <= said
