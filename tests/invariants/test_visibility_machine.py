"""A hypothesis state machine over one store: nothing forgotten, rejected or expired is ever read or exported.

Rules interleave what a person and their imports do: add a statement (some kept only until a moment a
fraction of a second away, and time is let pass), import a ChatGPT export holding one, forget a statement's message, reject
its memory, export the memories, and import again an earlier export or chat file. Every statement
carries a made-up word of its own (fixed length, letters only, so no word holds another), and the
model records which words must stay unreadable: forgotten, rejected, or expired once their moment has
passed. After every step the invariant reads the store the way its surfaces do (search on the dual
route, answer, the episode and memory listings, detail and history by id) and every export is read
back whole; none may hold such a word.

The store uses the hash embedder through the ``Embedder`` protocol (the real model has its own tests):
what is visible is decided in SQL, not by what the vectors mean. Examples are kept few and short so the
suite stays fast.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from importing.import_support import chatgpt_conversation
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from veramem_desktop.core.errors import InvalidInputError, VeramemError

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

TEMPLATES = (
    "My locker code is {}.",
    "I live in {}.",
    "My favourite band is {}.",
    "My cat is called {}.",
)
#: how far ahead an expiring statement's moment is (``let_time_pass`` waits for it)
LIFETIME = timedelta(milliseconds=600)
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def word(n: int) -> str:
    """The n-th made-up word: 'Xq' + three letters + 'ton' (eight letters, none inside another)."""
    a, rest = divmod(n, 26 * 26)
    b, c = divmod(rest, 26)
    return f"Xq{LETTERS[a % 26]}{LETTERS[b]}{LETTERS[c]}ton"


class Statement:
    def __init__(self, token: str, memories: list[str], episodes: list[str], until: datetime | None) -> None:
        self.token = token
        self.memories = memories
        self.episodes = episodes
        self.until = until
        self.state = "live"  # live, forgotten, rejected


class VisibilityMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="vismachine-"))
        config = Config()
        config.llm.backend = "rule-based"
        config.organise.linking = False
        self.mem, _ = Memory.create(
            self.dir / "home",
            passphrase=PASSPHRASE,
            use_keyring=False,
            embedder=HashEmbedder(),
            config=config,
        )
        self.count = 0
        self.said: dict[str, Statement] = {}
        self.exports: list[Path] = []
        self.chats: list[Path] = []

    def teardown(self) -> None:
        self.mem.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # ------------------------------------------------------------ the model
    def _new_token(self) -> str:
        self.count += 1
        return word(self.count)

    def hidden(self) -> set[str]:
        """The words no read may show now."""
        now = datetime.now(UTC)
        return {
            s.token.casefold()
            for s in self.said.values()
            if s.state != "live" or (s.until is not None and s.until <= now)
        }

    def _live(self, *, with_memory: bool = False) -> list[str]:
        return sorted(
            t for t, s in self.said.items() if s.state == "live" and (s.memories or not with_memory)
        )

    def _leaks(self, text: str, hidden: set[str]) -> set[str]:
        low = text.casefold()
        return {t for t in hidden if t in low}

    # ------------------------------------------------------------ rules
    @initialize()
    def control(self) -> None:
        self.mem.add("I like green tea in the morning.", session_id="control")

    @rule(template=st.sampled_from(TEMPLATES), expiring=st.booleans())
    def add(self, template: str, expiring: bool) -> None:
        token = self._new_token()
        until = datetime.now(UTC) + LIFETIME if expiring else None
        try:
            result = self.mem.add(
                template.format(token), session_id=f"s-{token}", until=until.isoformat() if until else None
            )
        except InvalidInputError:
            assert until is not None and until <= datetime.now(UTC)  # the machine was slower than LIFETIME
            return
        mems = [m["id"] for part in (result.added, result.updated, result.unchanged) for m in part]
        if result.updated or result.unchanged:
            # a new version of (or evidence for) a memory kept with no expiry keeps none either, and the add
            # says so in a notice: the statement lives on in it, and so does the message it cites
            until = None
        if until is None:  # a lasting statement taken as evidence for an earlier memory keeps that one too
            kept = {m["id"] for m in result.unchanged}
            for earlier in self.said.values():
                if kept & set(earlier.memories):
                    earlier.until = None
        self.said[token] = Statement(token, mems, [e.id for e in result.episodes], until)

    @rule(template=st.sampled_from(TEMPLATES))
    def import_chat(self, template: str) -> None:
        token = self._new_token()
        path = self.dir / f"chat-{token}.json"
        turns = [("user", template.format(token)), ("assistant", "Noted.")]
        path.write_text(json.dumps([chatgpt_conversation(f"c-{token}", "chat", turns)]))
        self.mem.import_history(path)
        self.chats.append(path)
        episodes = [
            e.id for e in self.mem.episodes(limit=10_000, include_rejected=True) if token in e.content
        ]
        self.said[token] = Statement(token, [], episodes, None)

    @precondition(lambda self: self._live())
    @rule(data=st.data())
    def forget(self, data: st.DataObject) -> None:
        token = data.draw(st.sampled_from(self._live()))
        for episode in self.said[token].episodes:
            try:
                self.mem.forget(episode)
            except VeramemError:
                pass  # erased already, with something it was derived with
        self.said[token].state = "forgotten"

    @precondition(lambda self: self._live(with_memory=True))
    @rule(data=st.data())
    def reject(self, data: st.DataObject) -> None:
        token = data.draw(st.sampled_from(self._live(with_memory=True)))
        try:
            self.mem.review.reject(self.said[token].memories[0], "wrong")
        except VeramemError:
            return  # no longer a memory that can be rejected (replaced or erased)
        self.said[token].state = "rejected"

    @precondition(lambda self: self._pending())
    @rule()
    def let_time_pass(self) -> None:
        """Wait until the soonest expiry has passed (no sweep runs: reads must hide it by themselves)."""
        time.sleep(max(0.0, (min(self._pending()) - datetime.now(UTC)).total_seconds()) + 0.05)

    def _pending(self) -> list[datetime]:
        now = datetime.now(UTC)
        return [
            s.until for s in self.said.values() if s.state == "live" and s.until is not None and s.until > now
        ]

    @rule()
    def export(self) -> None:
        path = self.dir / f"export-{len(self.exports)}.jsonl"
        self.mem.importer.export_memories(path)
        self.exports.append(path)
        leaked = self._leaks(path.read_text(), self.hidden())
        assert not leaked, f"the export wrote {sorted(leaked)}"

    @precondition(lambda self: self.exports or self.chats)
    @rule(data=st.data())
    def import_again(self, data: st.DataObject) -> None:
        self.mem.import_history(data.draw(st.sampled_from(self.exports + self.chats)))

    # ------------------------------------------------------------ the invariant
    @invariant()
    def nothing_hidden_is_read(self) -> None:
        hidden = self.hidden()
        if not hidden:
            return
        shown: dict[str, str] = {}
        for token in sorted(hidden):
            found = self.mem.search(token, route="dual", k=20)
            shown[f"search {token}"] = " ".join(h.text for h in found.results)
        said = self.mem.answer(f"What about {sorted(hidden)[-1]}?")
        shown["answer"] = (said.text or "") + " ".join(h.text for h in said.cited)
        shown["episodes"] = " ".join(e.content for e in self.mem.episodes(limit=10_000))
        shown["memories"] = " ".join(m.text for m in self.mem.memories(status=None, limit=10_000))
        for s in self.said.values():
            if s.token.casefold() not in hidden:
                continue
            for mid in s.memories:
                for name, read in (("detail", self.mem.reading.detail), ("history", self.mem.history)):
                    try:
                        shown[f"{name} {mid}"] = json.dumps(read(mid), default=lambda o: o.to_dict())
                    except VeramemError:
                        pass
        leaks = {where: sorted(self._leaks(text, hidden)) for where, text in shown.items()}
        assert not any(leaks.values()), {k: v for k, v in leaks.items() if v}


def test_nothing_forgotten_rejected_or_expired_is_ever_read_or_exported(isolated_home: Path) -> Any:
    run_state_machine_as_test(
        VisibilityMachine,
        settings=settings(
            max_examples=12,
            stateful_step_count=15,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
