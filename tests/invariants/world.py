"""A store holding one row of each kind no read may show, for the invariant tests of every surface.

The matrix (issue 30): a forgotten item, a rejected value (and a message held for resembling it), an
expired item, another user's item, and an item of the person's that an ungranted agent asks for. Each
case is known by a made-up word that appears nowhere else, so a surface leaks a case exactly when its
output holds that word; and by the ids of its memories and messages, for the surfaces that take an id.
A control memory ("green tea") is readable by everyone, so a probe that shows nothing at all is caught.

The store uses the hash embedder (tests/support/fake_embedder.py) through the ``Embedder`` protocol:
visibility is SQL over the rows and does not depend on what the vectors mean.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

#: the person (the config's identity) and the other user of the same store
ME = "me"
OTHER_USER = "bob"
#: an agent the person granted, and one it did not (agent surfaces act as the latter)
GRANTED_AGENT = "claude"
UNGRANTED_AGENT = "cursor"

#: the cases, each with its word (lower case) and what a reader would ask to find it
CASES: dict[str, tuple[str, str]] = {
    "forgotten": ("fgtqlocker", "locker number"),
    "rejected": ("rjxporlamo", "where do I live"),
    "expired": ("expqgate", "gate code"),
    "other_user": ("othbobpin", "bank pin"),
    "ungranted_agent": ("agtpassport", "passport number"),
}
CONTROL = "green tea"
#: the cases a person at their own store is held to; ``ungranted_agent`` is the person's own item
PERSON_CASES = ("forgotten", "rejected", "expired", "other_user")
AGENT_CASES = tuple(CASES)


@dataclass
class World:
    home: Path
    #: case -> ids of its memories and messages (the forgotten ones no longer exist)
    ids: dict[str, list[str]] = field(default_factory=dict)
    control_id: str = ""

    def words(self, cases: tuple[str, ...]) -> dict[str, str]:
        return {case: CASES[case][0] for case in cases}

    def leaks(self, text: str, cases: tuple[str, ...]) -> list[str]:
        """The cases whose word ``text`` holds."""
        low = text.casefold()
        return [case for case, word in self.words(cases).items() if word in low]


def config() -> Config:
    cfg = Config()
    cfg.llm.backend = "rule-based"
    cfg.organise.linking = False
    return cfg


def open_store(home: Path) -> Memory:
    """The world's store, opened again (the hash embedder, as it was built with)."""
    return Memory(home, embedder=HashEmbedder())


def build(home: Path) -> World:
    """Write the world into a new store at ``home`` and close it."""
    mem, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config()
    )
    world = World(home)
    try:
        _fill(mem, world)
    finally:
        mem.close()
    return world


def _ids(result: Any) -> list[str]:
    return [e.id for e in result.episodes] + [
        m["id"] for part in (result.added, result.updated) for m in part
    ]


def _fill(mem: Memory, world: World) -> None:
    control = mem.add(f"I like {CONTROL} in the morning.", session_id="control")
    world.control_id = control.added[0]["id"]

    gone = mem.add("My locker number is Fgtqlocker.", session_id="forgotten")
    world.ids["forgotten"] = _ids(gone)
    mem.forget(gone.episodes[0].id)

    wrong = mem.add("I live in Rjxporlamo.", session_id="rejected")
    mem.review.reject(wrong.added[0]["id"], "wrong")
    near = mem.add("I live in Rjxporlamoo.", session_id="rejected")  # held: a near miss of the rejected value
    world.ids["rejected"] = _ids(wrong) + _ids(near)

    soon = (datetime.now(UTC) + timedelta(seconds=2)).isoformat()
    lapsing = mem.add("My gate code is Expqgate.", session_id="expired", until=soon)
    claim = mem.add(  # an assistant's claim waits in the review queue until it expires
        {"role": "assistant", "content": "Your storage unit code is Expqgate as well."},
        session_id="expired-claim",
        until=soon,
    )
    world.ids["expired"] = _ids(lapsing) + _ids(claim)

    other = mem.add("My bank pin is Othbobpin.", user_id=OTHER_USER, session_id="other")
    world.ids["other_user"] = _ids(other)

    mem.grants.grant("user_agent", ME, GRANTED_AGENT)
    own = mem.add("My passport number is Agtpassport.", session_id="agent")
    world.ids["ungranted_agent"] = _ids(own)

    time.sleep(max(0.0, (datetime.fromisoformat(soon) - datetime.now(UTC)).total_seconds()) + 0.2)
