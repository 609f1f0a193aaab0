"""The collector pause around applying or sealing batches (issue 17): off inside, back on after,
also after an error, counted across nested and concurrent pauses, and left off if it was off."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest
from veramem_desktop.sync import gc_pause


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_inside_a_pause_and_on_after_it_even_after_an_error() -> None:
    with gc_pause.paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_pause.paused():
        raise RuntimeError("apply failed")
    assert gc.isenabled()


def test_nested_and_concurrent_pauses_turn_it_on_only_when_the_last_one_ends() -> None:
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with gc_pause.paused():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=other)
    with gc_pause.paused():
        with gc_pause.paused():
            worker.start()
            inside.wait(5)
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause is still running
    release.set()
    worker.join(5)
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with gc_pause.paused():
        pass
    assert not gc.isenabled()
