"""Vectors of another model (what a synced device computing otherwise ships) are made again with the
store's embedder by the organiser in the background, so those messages and memories are found by
meaning again without any command; nothing forgotten or withheld comes back through them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import engine_of, organiser_of, store_of
from veramem_desktop.core.lifecycle import reembed
from veramem_desktop.core.protocols import Vectors
from veramem_desktop.core.storage.access import Caller

from veramem_desktop.config import Config
from veramem_desktop.doctor import checks
from veramem_desktop.memory import Memory

ANN_SAYS = [
    {"role": "user", "content": "My sister adopted a small grey cat last winter."},
    {"role": "assistant", "content": "That is lovely. What is its name?"},
    {"role": "user", "content": "She calls it Pepper, and the vet is on Elm Street."},
]
BOB_SAYS = "My locker code at the gym is 4471."


class OtherDevice(HashEmbedder):
    """The same vectors under another model id: what a device computing otherwise would have made."""

    @property
    def name(self) -> str:
        return "another-device-model"


class Hooked(HashEmbedder):
    """The store's embedder, running ``before`` once, the first time ``when(texts, thread name)`` holds."""

    def __init__(self, before: Callable[[], None], when: Callable[[Sequence[str], str], bool]) -> None:
        super().__init__()
        self.before: Callable[[], None] | None = before
        self.when = when

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self.before is not None and self.when(texts, threading.current_thread().name):
            before, self.before = self.before, None
            before()
        return super().embed(texts)


def _config() -> Config:
    config = Config()
    config.llm.backend = "rule-based"
    return config


def _store_of_another_model(home: Path) -> dict[str, str]:
    """A store whose every vector is another model's (all four kinds); the ids of ann's and bob's memories."""
    mem, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, config=_config(), embedder=OtherDevice()
    )
    with mem:
        ann = mem.add(ANN_SAYS, session_id="s1", user_id="ann").added
        bob = mem.add(BOB_SAYS, user_id="bob").added
        assert mem.organiser.wait_for_links(30)
        assert set(mem.measuring.vector_models()) == {"another-device-model"}
    cat = next(d["id"] for d in ann if "cat" in d["text"])
    return {"cat": cat, "bob": bob[0]["id"]}


def _open(home: Path, embedder: HashEmbedder | None = None) -> Memory:
    return Memory(home, passphrase=PASSPHRASE, config=_config(), embedder=embedder or HashEmbedder())


def _dense(mem: Memory, query: str, user: str) -> set[str]:
    _, scores, _ = engine_of(mem).rank(query, Caller(user), route="facts", channels=("dense",))
    return set(scores)


def test_the_organiser_makes_vectors_of_another_model_again_and_dense_search_then_finds_them(
    isolated_home: Path,
) -> None:
    ids = _store_of_another_model(isolated_home)
    with _open(isolated_home) as mem:
        before = mem.organiser.vectors_behind()
        assert set(before) == {"episode", "episode_ctx", "memory", "memory_ctx"}
        assert ids["cat"] not in _dense(mem, "grey cat adopted", "ann")  # found by its words only
        mem.add("The printer on the second floor is out of toner.", user_id="ann")  # no command: an add
        assert mem.organiser.wait_for_vectors(30)
        assert mem.organiser.wait_for_links(30)  # the linker may still write after the add: count once idle
        assert mem.organiser.vectors_behind() == {}
        assert ids["cat"] in _dense(mem, "grey cat adopted", "ann")
        assert "cat" in mem.search("grey cat adopted", user_id="ann").results[0].text
        # the other model's vectors are kept, one beside each new one
        models = mem.measuring.vector_models()
        assert models["another-device-model"] == sum(before.values())
    with _open(isolated_home) as again:
        assert store_of(again)  # opened
        report = reembed.catch_up(store_of(again), HashEmbedder())
        assert report.made == {}  # a second pass has nothing to do
        assert again.measuring.vector_models() == models


def test_a_withheld_memory_made_again_stays_out_of_another_callers_search(isolated_home: Path) -> None:
    ids = _store_of_another_model(isolated_home)
    with _open(isolated_home) as mem:
        ledger = mem.reading.ledger_length()
        report = reembed.catch_up(store_of(mem), HashEmbedder())
        assert report.made["memory"] >= 2
        assert mem.reading.ledger_length() == ledger and mem.verify().ok  # vectors are an index, not a change
        assert ids["bob"] in _dense(mem, "locker code at the gym", "bob")
        assert ids["bob"] not in _dense(mem, "locker code at the gym", "ann")
        assert all("4471" not in h.text for h in mem.search("locker code at the gym", user_id="ann").results)


def test_forget_erases_the_new_vectors_with_the_kept_ones(isolated_home: Path) -> None:
    ids = _store_of_another_model(isolated_home)
    with _open(isolated_home) as mem:
        reembed.catch_up(store_of(mem), HashEmbedder())
        store = store_of(mem)
        episodes = [
            r[0] for r in store.query("SELECT episode_id FROM evidence WHERE memory_id = ?", (ids["bob"],))
        ]
        owners = [ids["bob"], *episodes]
        marks = ",".join("?" * len(owners))
        count = f"SELECT count(*) FROM embeddings WHERE owner_id IN ({marks})"
        assert store.query_one(count, owners)[0] >= 2 * 4  # two models, four kinds
        mem.forget(f"user:{'bob'}")
        assert store.query_one(count, owners)[0] == 0
        assert reembed.catch_up(store, HashEmbedder()).made == {}  # nothing to bring back


def test_a_memory_forgotten_while_its_batch_is_embedded_gets_no_vector(isolated_home: Path) -> None:
    ids = _store_of_another_model(isolated_home)
    with _open(isolated_home) as mem:
        store = store_of(mem)
        episodes = [
            r[0] for r in store.query("SELECT episode_id FROM evidence WHERE memory_id = ?", (ids["bob"],))
        ]
        owners = [ids["bob"], *episodes]
        marks = ",".join("?" * len(owners))
        vectors = f"SELECT owner_kind, model FROM embeddings WHERE owner_id IN ({marks})"
        assert len(store.query(vectors, owners)) == 4
        # the forget lands after the batch holding bob's message was read, before its vectors are stored
        hooked = Hooked(lambda: mem.forget(ids["bob"]), lambda texts, _: any("4471" in t for t in texts))
        report = reembed.catch_up(store, hooked)
        assert hooked.before is None and report.made  # it ran, and the others were made
        assert store.query(vectors, owners) == []
        assert reembed.behind(store, hooked.name) == {}


def test_an_interrupted_pass_resumes_where_it_stopped(isolated_home: Path) -> None:
    _store_of_another_model(isolated_home)
    with _open(isolated_home) as mem:
        store = store_of(mem)
        total = sum(mem.organiser.vectors_behind().values())
        batches = iter(range(1000))
        first = reembed.catch_up(store, HashEmbedder(), batch=1, stop=lambda: next(batches) >= 2)
        assert sum(first.made.values()) == 2
        assert sum(mem.organiser.vectors_behind().values()) == total - 2
        rest = reembed.catch_up(store, HashEmbedder(), batch=1)
        assert sum(rest.made.values()) == total - 2 and mem.organiser.vectors_behind() == {}


def test_closing_stops_the_background_pass_after_its_batch_and_the_next_open_finishes_it(
    isolated_home: Path,
) -> None:
    _store_of_another_model(isolated_home)
    entered, gate = threading.Event(), threading.Event()

    def hold() -> None:
        entered.set()
        gate.wait(10)

    mem = _open(isolated_home, Hooked(hold, lambda _, thread: thread == "veramem-vectors"))
    mem.add("The printer on the second floor is out of toner.", user_id="ann")
    assert entered.wait(10)  # the first batch is being embedded in the background
    closer = threading.Thread(target=mem.close)
    closer.start()
    gate.set()
    closer.join(10)
    assert not closer.is_alive()
    with _open(isolated_home) as again:
        assert again.organiser.vectors_behind()  # stopped early: the rest is still to make
        again.add("The plant by the window needs water.", user_id="ann")
        assert again.organiser.wait_for_vectors(30) and again.organiser.vectors_behind() == {}


def test_doctor_says_the_vectors_are_being_made_again_then_that_every_one_is_there(
    isolated_home: Path,
) -> None:
    _store_of_another_model(isolated_home)
    with _open(isolated_home) as mem:
        vectors = next(c for c in checks(mem) if c.name == "vectors")
        assert not vectors.ok and "background" in vectors.fix and "veramem reindex" in vectors.fix
        assert "another-device-model" in vectors.detail
        mem.add("The printer on the second floor is out of toner.", user_id="ann")
        assert mem.organiser.wait_for_vectors(30)
        vectors = next(c for c in checks(mem) if c.name == "vectors")
        assert vectors.ok and "kept beside" in vectors.detail, vectors


def test_vectors_landed_after_a_finished_pass_are_made_at_the_next_exchange(isolated_home: Path) -> None:
    from veramem_desktop.sync.service import RunReport

    ids = _store_of_another_model(isolated_home)
    with _open(isolated_home) as mem:
        mem.add("The printer on the second floor is out of toner.", user_id="ann")
        assert mem.organiser.wait_for_vectors(30) and mem.organiser.vectors_behind() == {}
        # another device's memory lands (a second facade on the same store stands in for sync's apply)
        with _open(isolated_home, OtherDevice()) as other:
            landed = other.add("The spare key hangs behind the kitchen door.", user_id="ann").added[0]["id"]
        assert "memory" in mem.organiser.vectors_behind()
        organiser = organiser_of(mem)  # what DeviceSync.run tells after an exchange
        organiser.noticed_sync(RunReport(applied_events=0))
        assert (
            mem.organiser.wait_for_vectors(30) and mem.organiser.vectors_behind()
        )  # applied nothing, looked before: no pass
        organiser.noticed_sync(RunReport(applied_events=1))
        assert mem.organiser.wait_for_vectors(30) and mem.organiser.vectors_behind() == {}
        assert landed in _dense(mem, "spare key kitchen door", "ann") and ids["cat"] in _dense(
            mem, "grey cat", "ann"
        )
