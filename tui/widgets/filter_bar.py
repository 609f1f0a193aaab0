"""The filters of the memories list: kind, status, authority, trust, user, agent."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Grid
from textual.message import Message
from textual.widgets import Input, Select
from veramem_desktop.core.vocabulary import Authority, Kind, Status, Trust

KINDS = tuple(Kind)
STATUSES = tuple(Status)
AUTHORITIES = tuple(Authority)
#: the trusts a memory can have (a raw episode's own "raw" is no memory's)
TRUSTS = (Trust.CANDIDATE, Trust.VERIFIED, Trust.REJECTED)


@dataclass(frozen=True)
class Filters:
    """What the list is narrowed to; None means any."""

    kind: str | None = None
    status: str | None = Status.ACTIVE
    authority: str | None = None
    trust: str | None = None
    user_id: str | None = None
    agent_id: str | None = None

    def matches(self, hit: Any) -> bool:
        """Whether a search hit passes the kind/status/authority/trust filters (a view filter only)."""
        for name in ("kind", "status", "authority", "trust"):
            wanted = getattr(self, name)
            if wanted is not None and getattr(hit, name, wanted) != wanted:
                return False
        return True


def _select(name: str, values: tuple[str, ...], value: str | None) -> Select[str]:
    return Select(
        [(v, v) for v in values],
        prompt=f"any {name}",
        value=value if value is not None else Select.NULL,
        id=f"filter-{name}",
        classes="filter",
    )


class FilterBar(Grid):
    """Drop-downs and two text fields; posts ``Changed`` with the new :class:`Filters`."""

    @dataclass
    class Changed(Message):
        filters: Filters

    def __init__(self, filters: Filters | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.filters = filters or Filters()

    def compose(self) -> ComposeResult:
        f = self.filters
        yield _select("kind", KINDS, f.kind)
        yield _select("status", STATUSES, f.status)
        yield _select("authority", AUTHORITIES, f.authority)
        yield _select("trust", TRUSTS, f.trust)
        yield Input(f.user_id or "", placeholder="user id", id="filter-user", classes="filter")
        yield Input(f.agent_id or "", placeholder="agent id", id="filter-agent", classes="filter")

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        event.stop()
        name = (event.select.id or "").removeprefix("filter-")
        value = None if event.value is Select.NULL else str(event.value)
        self._set(**{name: value})

    @on(Input.Submitted)
    @on(Input.Blurred)
    def _text_changed(self, event: Input.Submitted | Input.Blurred) -> None:
        event.stop()
        field = "user_id" if event.input.id == "filter-user" else "agent_id"
        self._set(**{field: event.input.value.strip() or None})

    def _set(self, **changes: Any) -> None:
        updated = replace(self.filters, **changes)
        if updated != self.filters:
            self.filters = updated
            self.post_message(self.Changed(updated))
