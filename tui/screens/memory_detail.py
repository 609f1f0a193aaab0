"""One memory in full: text and scores, its evidence in the source episodes, its versions,
its links to related memories, and the ledger entries that touched it. Also opens raw episodes found by search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static
from veramem_desktop.core.vocabulary import State
from veramem_desktop.tui.formatting import join_nonempty, one_line, outcome_line, plain, short_id, short_time
from veramem_desktop.tui.screens.base import FacadeWorkers
from veramem_desktop.tui.screens.forget import ForgetScreen
from veramem_desktop.tui.screens.reject import RejectScreen
from veramem_desktop.tui.widgets.evidence_view import EvidenceView
from veramem_desktop.tui.widgets.field_table import FieldTable
from veramem_desktop.tui.widgets.ledger_table import LedgerTable


def _version(item: Any) -> str:
    """Its number and what it replaced; a correction says which value was a mistake."""
    corrects = (getattr(item, "metadata", None) or {}).get("corrects") or {}
    if corrects.get("wrong") and item.supersedes:
        return f"{item.version} (corrects {corrects['wrong']!r} in {short_id(item.supersedes)})"
    return f"{item.version}" + (f" (supersedes {short_id(item.supersedes)})" if item.supersedes else "")


def item_fields(item: Any, state: str = "") -> list[tuple[str, str]]:
    """The label/value rows describing a MemoryItem (``state``: as search labels it, when known)."""
    utility = getattr(item, "utility", None)
    utility = utility() if callable(utility) else utility
    return [
        ("Kind", item.kind),
        ("Authority", item.authority),
        ("Trust", item.trust),
        ("Status", item.status),
        *([("State", state.replace("_", " "))] if state else []),
        ("Confidence", f"{item.confidence:.2f}"),
        ("Valid", f"{short_time(item.valid_from)} → {short_time(item.valid_to) or 'now'}"),
        ("Learned", short_time(item.created_at)),
        ("Version", _version(item)),
        (
            "Outcomes",
            outcome_line(
                item.uses,
                item.successes,
                item.failures,
                utility if isinstance(utility, (int, float)) else None,
            ),
        ),
        (
            "Scope",
            join_nonempty(
                [
                    f"user {item.user_id}" if item.user_id else None,
                    f"agent {item.agent_id}" if item.agent_id else None,
                ]
            ),
        ),
        ("Id", item.id),
    ] + keep_fields(item)


def keep_fields(item: Any) -> list[tuple[str, str]]:
    """A "Kept" row only for a pinned memory or one that expires (`veramem pin`, `add --until`)."""
    expires = (getattr(item, "metadata", None) or {}).get("expires_at")
    said = join_nonempty(
        [
            "pinned" if getattr(item, "pinned", False) else None,
            f"until {short_time(expires)}, then erased" if expires else None,
        ]
    )
    return [("Kept", said)] if said else []


def link_lines(memory_id: str, links: list[dict[str, Any]]) -> list[str]:
    """One line per link: its type, which way it points, and the other memory's short id."""
    out = []
    for link in links:
        outgoing = link.get("src") == memory_id
        other = link.get("dst") if outgoing else link.get("src")
        out.append(f"{link.get('type', ''):<12} {'→' if outgoing else '←'} {short_id(str(other))}")
    return out


def episode_fields(episode: Any) -> list[tuple[str, str]]:
    return [
        ("Role", episode.role + (f" ({episode.source_name})" if episode.source_name else "")),
        ("Session", episode.session_id or ""),
        ("Time", short_time(episode.event_time)),
        ("User", episode.user_id or ""),
        ("SHA-256", episode.sha256[:16] + "…"),
        ("Id", episode.id),
    ]


class MemoryDetailScreen(FacadeWorkers, Screen[None]):
    """Shows ``mem.reading.detail(id)`` (or ``mem.reading.episode(id)`` for an ``ep_`` id)."""

    CSS_PATH = "memory_detail.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="detail.back", tooltip="Back to the list"),
        Binding(
            "d",
            "forget",
            "Forget",
            id="detail.forget",
            tooltip="Erase this memory, its versions and evidence (shows exactly what first)",
        ),
        Binding(
            "a", "approve", "Approve", id="detail.approve", tooltip="Mark this memory as verified by you"
        ),
        Binding(
            "x",
            "reject",
            "Reject",
            id="detail.reject",
            tooltip="Reject this value: it can never come back under the same subject",
        ),
    ]

    @dataclass
    class Loaded(Message):
        detail: Any

    @dataclass
    class EpisodeLoaded(Message):
        episode: Any

    @dataclass
    class Decided(Message):
        item: Any
        verb: str

    def __init__(self, target_id: str) -> None:
        super().__init__()
        self.target_id = target_id

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail"):
            yield Static("", id="detail-text")
            yield FieldTable(id="detail-fields")
            yield Static("Evidence", classes="section-title", id="evidence-title")
            yield VerticalScroll(id="evidence", classes="section")
            yield Static("Versions", classes="section-title", id="versions-title")
            yield Static("", id="versions", classes="section")
            yield Static("Links", classes="section-title", id="links-title")
            yield Static("", id="links", classes="section")
            yield Static("Ledger entries", classes="section-title", id="ledger-title")
            yield LedgerTable(id="detail-ledger", show_actor=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#detail").loading = True
        self.load()

    def load(self) -> None:
        if self.target_id.startswith("ep_"):
            self.load_episode(self.target_id)
        else:
            self.load_detail(self.target_id)

    # ------------------------------------------------------------ workers
    @work(thread=True, exclusive=True, exit_on_error=False, group="detail.load")
    def load_detail(self, memory_id: str) -> None:
        # the person's own browser: a rejected memory is opened only from the rejected filter
        self.post_result(self.Loaded(self.memory.reading.detail(memory_id, include_rejected=True)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail.load")
    def load_episode(self, episode_id: str) -> None:
        self.post_result(self.EpisodeLoaded(self.memory.reading.episode(episode_id)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail.decide")
    def approve(self, memory_id: str) -> None:
        self.post_result(self.Decided(self.memory.review.approve(memory_id), "approved"))

    # ------------------------------------------------------------ results
    def on_memory_detail_screen_loaded(self, message: Loaded) -> None:
        detail = message.detail
        item = detail.item
        self.query_one("#detail-text", Static).update(plain(item.text))
        self.query_one(FieldTable).show(item_fields(item, detail.state))
        evidence = self.query_one("#evidence", VerticalScroll)
        evidence.remove_children()
        if detail.evidence:
            evidence.mount_all(EvidenceView(ev) for ev in detail.evidence)
        else:
            evidence.mount(Static("No evidence is stored for this item.", classes="muted"))
        versions = [
            f"v{v.version}  {v.status:<10} {short_time(v.valid_from)} → {short_time(v.valid_to) or 'now'}  "
            f"{one_line(v.text, 400)}"
            for v in detail.versions
        ]
        conflicts = getattr(detail, "conflicts", []) or []
        if conflicts:
            versions.append("")
            settled = "" if detail.state == State.IN_CONFLICT else " (settled)"
            versions += [f"conflicts with {short_id(c)}{settled}" for c in conflicts]
        self.query_one("#versions", Static).update(Text("\n".join(versions) or "Only this version."))
        lines = link_lines(item.id, getattr(detail, "links", []) or [])
        self.query_one("#links", Static).update(Text("\n".join(lines)))
        for part in ("#links-title", "#links"):  # shown only when the memory has links
            self.query_one(part).display = bool(lines)
        self.query_one(LedgerTable).show(detail.ledger)
        self.query_one("#detail").loading = False

    def on_memory_detail_screen_episode_loaded(self, message: EpisodeLoaded) -> None:
        episode = message.episode
        self.query_one("#detail").loading = False
        if episode is None:
            self.notify("That episode is no longer in the store.", title="Not found", severity="warning")
            self.dismiss()
            return
        self.query_one("#detail-text", Static).update(plain(episode.content))
        self.query_one(FieldTable).show(episode_fields(episode))
        for hidden in (
            "#evidence-title",
            "#evidence",
            "#versions-title",
            "#versions",
            "#links-title",
            "#links",
        ):
            self.query_one(hidden).display = False
        self.query_one("#ledger-title").display = False
        self.query_one(LedgerTable).display = False

    def on_memory_detail_screen_decided(self, message: Decided) -> None:
        self.notify(
            f"{message.verb.capitalize()}: {one_line(message.item.text, 200)}", title="Review", markup=False
        )
        self.vapp.store_changed.publish(message.verb)
        self.load()

    # ------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Approve and reject apply to memories, not to raw episodes: hide them there."""
        if action in ("approve", "reject") and self.target_id.startswith("ep_"):
            return False
        return True

    def action_back(self) -> None:
        self.dismiss()

    def action_forget(self) -> None:
        self.app.push_screen(ForgetScreen(self.target_id), self._forgotten)

    def _forgotten(self, report: Any) -> None:
        if report is not None:
            self.dismiss()

    def action_approve(self) -> None:
        self.approve(self.target_id)

    def action_reject(self) -> None:
        self.app.push_screen(RejectScreen(self.target_id), self._rejected)

    def _rejected(self, item: Any) -> None:
        if item is not None:
            self.load()
