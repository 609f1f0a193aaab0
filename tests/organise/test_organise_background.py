"""Linking runs behind the add: the add returns first, and a failing linker leaves it intact."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support.fake_embedder import HashEmbedder
from support.internals import store_of
from veramem_desktop.core.lifecycle import budgets
from veramem_desktop.core.lifecycle.links import enqueue
from veramem_desktop.core.llm import DEFAULT_CONTEXT_TOKENS, Capabilities, LinkVerdict, Reply
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

from veramem_desktop.memory import Memory

PASSPHRASE = "correct horse battery staple"


class GatedLLM(RuleBasedLLM):
    """Rule-based everywhere, except that ``link`` waits for a gate (or fails)."""

    def __init__(self, *, fail: bool = False) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.fail = fail

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities("gated model", batch_extraction=True, context_tokens=DEFAULT_CONTEXT_TOKENS)

    def link(self, a: str, b: str) -> Reply[LinkVerdict]:
        self.entered.set()
        if self.fail:
            raise RuntimeError("the linker broke")
        assert self.gate.wait(30), "the test never opened the gate"
        return Reply(LinkVerdict("supports"))


def _open(home: Path, llm: RuleBasedLLM) -> Memory:
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), llm=llm)
    return mem


def test_the_add_returns_before_linking_finishes(isolated_home: Path) -> None:
    llm = GatedLLM()
    mem = _open(isolated_home, llm)
    try:
        first = mem.add("Ann plays tennis on Sundays.").added[0]["id"]
        assert (
            mem.organiser.wait_for_links(10) and mem.organiser.links_pending() == 0
        )  # nothing to link it to yet
        second = mem.add("Ann plays squash on Mondays.").added[0]["id"]
        assert llm.entered.wait(10)
        # the add has returned while the linker is still waiting on the model
        assert mem.organiser.links_pending() == 1 and mem.reading.links(second) == []
        assert mem.get(second).status == "active"
        llm.gate.set()
        assert mem.organiser.wait_for_links(10)
        assert [(x["other"], x["type"]) for x in mem.reading.links(second)] == [(first, "supports")]
        assert mem.organiser.links_pending() == 0
        assert [x["type"] for x in mem.reading.detail(first).links] == ["supports"]
    finally:
        llm.gate.set()
        mem.close()


def test_a_failing_linker_leaves_the_add_intact_and_the_memory_queued(
    isolated_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    llm = GatedLLM(fail=True)
    mem = _open(isolated_home, llm)
    try:
        mem.add("Ann plays tennis on Sundays.")
        assert mem.organiser.wait_for_links(10)
        result = mem.add("Ann plays squash on Mondays.")
        assert mem.organiser.wait_for_links(10)
        added = result.added[0]["id"]
        assert mem.get(added).status == "active" and mem.reading.links(added) == []
        assert added in {h.id for h in mem.search("squash on Mondays", route="facts").results}
        row = store_of(mem).query_one(
            "SELECT attempts, last_error FROM pending_links WHERE memory_id = ?", (added,)
        )
        assert row == (1, "RuntimeError")
        assert added in caplog.text and "squash" not in caplog.text  # logs carry ids, never content
        assert mem.verify().ok
    finally:
        mem.close()


def test_what_a_closed_process_left_queued_is_linked_by_the_next_consolidate(isolated_home: Path) -> None:
    mem = _open(isolated_home, RuleBasedLLM())
    mem.config.organise.linking = False  # as if the process had exited before the linker ran
    a = mem.add("Ann plays tennis on Sundays.").added[0]["id"]
    b = mem.add("Ann plays squash on Mondays.").added[0]["id"]
    with store_of(mem).atomic() as conn:
        enqueue(conn, [a, b])
    mem.close()
    again = Memory(isolated_home, passphrase=PASSPHRASE, embedder=HashEmbedder(), llm=RuleBasedLLM())
    try:
        assert again.organiser.links_pending() == 2
        again.consolidate()
        assert again.organiser.links_pending() == 0 and [x["other"] for x in again.reading.links(a)] == [b]
    finally:
        again.close()


def test_a_memory_added_while_the_linker_is_finishing_is_linked_before_it_is_idle(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The linker checks the budgets after draining; an add landing then must not be left queued (the
    thread used to end without looking again, and the next wait said idle with a memory still queued)."""
    entered, gate = threading.Event(), threading.Event()
    enforce = budgets.enforce

    def held(*args: object, **kwargs: object) -> list[str]:
        if not entered.is_set():
            entered.set()
            assert gate.wait(30), "the test never opened the gate"
        return enforce(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(budgets, "enforce", held)
    mem = _open(isolated_home, RuleBasedLLM())
    try:
        first = mem.add("Ann plays tennis on Sundays.").added[0]["id"]
        assert entered.wait(10)  # the queue is drained; the thread is checking the budgets
        second = mem.add("Ann plays tennis on Sundays at the club.").added[0]["id"]
        gate.set()
        assert mem.organiser.wait_for_links(10)
        assert mem.organiser.links_pending() == 0
        assert {x["other"] for x in mem.reading.links(second)} == {first}
    finally:
        gate.set()
        mem.close()


def test_a_wait_while_a_background_thread_is_starting_never_joins_an_unstarted_thread(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI once failed with "cannot join thread before it is started": a waiter read the new thread
    between its publication and its start. Here each wait runs at exactly that moment."""
    mem = _open(isolated_home, RuleBasedLLM())
    start = threading.Thread.start
    waited: dict[str, bool] = {}

    def start_after_a_wait(thread: threading.Thread) -> None:
        if thread.name == "veramem-linker":
            waited[thread.name] = mem.organiser.wait_for_links(0)
        if thread.name == "veramem-vectors":
            waited[thread.name] = mem.organiser.wait_for_vectors(0)
        start(thread)

    try:
        monkeypatch.setattr(threading.Thread, "start", start_after_a_wait)
        mem.add("Ann plays tennis on Sundays.")
        mem.add("Ann plays squash on Mondays.")
        assert mem.organiser.wait_for_links(10) and mem.organiser.wait_for_vectors(10)
        assert waited.get("veramem-linker") is True  # nothing was running yet: idle, and no error
    finally:
        monkeypatch.undo()
        mem.close()


def test_with_background_linking_off_the_queue_waits_for_consolidate(isolated_home: Path) -> None:
    """The setting a repeatable benchmark uses: adds queue, no thread runs, consolidate links."""
    mem = _open(isolated_home, RuleBasedLLM())
    mem.config.organise.background = False
    try:
        a = mem.add("Ann plays tennis on Sundays.").added[0]["id"]
        b = mem.add("Ann plays squash on Mondays.").added[0]["id"]
        assert not [t for t in threading.enumerate() if t.name == "veramem-linker"]
        assert mem.organiser.links_pending() == 2 and mem.reading.links(a) == []
        mem.consolidate()
        assert mem.organiser.links_pending() == 0 and [x["other"] for x in mem.reading.links(a)] == [b]
    finally:
        mem.close()
