"""Three devices, random work, random delivery: every device ends in the same state, nothing
forgotten (a memory, or a whole secondary user with their grants) survives in any store or in
any copy of the folder, and every device knows every rejection it holds a rejected row of."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sync_e2e_helpers import (
    OTHER_USER,
    Device,
    all_rows_text,
    converge,
    deliver,
    folder_plaintext,
    make_devices,
    own_files,
)
from veramem_desktop.core.storage import ledger_verify
from veramem_desktop.sync.replica import state_hash

DEVICES = 3

step = st.one_of(
    st.tuples(st.just("add"), st.integers(0, DEVICES - 1)),
    st.tuples(st.just("add_other"), st.integers(0, DEVICES - 1)),
    st.tuples(st.just("grant"), st.integers(0, DEVICES - 1)),
    st.tuples(st.just("reject"), st.integers(0, DEVICES - 1), st.integers(0, 50)),
    st.tuples(st.just("forget_user"), st.integers(0, DEVICES - 1)),
    st.tuples(st.just("update"), st.integers(0, DEVICES - 1), st.integers(0, 50)),
    st.tuples(
        st.just("feedback"),
        st.integers(0, DEVICES - 1),
        st.integers(0, 50),
        st.sampled_from([1.0, 0.5, -1.0, -0.25]),
    ),
    st.tuples(st.just("retract"), st.integers(0, DEVICES - 1), st.integers(0, 50)),
    st.tuples(st.just("forget"), st.integers(0, DEVICES - 1), st.integers(0, 50)),
    st.tuples(st.just("run"), st.integers(0, DEVICES - 1)),
    # copy some of src's files (a random subset, in a random order) to dst; again later = duplicates
    st.tuples(
        st.just("deliver"),
        st.integers(0, DEVICES - 1),
        st.integers(0, DEVICES - 1),
        st.lists(st.integers(0, 40), max_size=6),
    ),
)


def _pick(device: Device, index: int) -> str | None:
    ids = device.memory_ids()
    return ids[index % len(ids)] if ids else None


@dataclass
class _Play:
    """The devices going through the steps, and what the steps forgot (which no device may keep)."""

    devices: list[Device]
    counter: int = 0
    forgotten: list[str] = field(default_factory=list)
    forgotten_grants: list[str] = field(default_factory=list)

    def step(self, action: tuple[Any, ...]) -> None:
        kind, d = action[0], self.devices[action[1]]
        if kind in _ON_A_MEMORY:
            target = _pick(d, action[2])
            if target:  # a step on a memory when the device holds none is skipped
                _ON_A_MEMORY[kind](self, d, target, action)
        else:
            _ON_THE_DEVICE[kind](self, d, action)

    def add(self, d: Device, action: tuple[Any, ...]) -> None:
        self.counter += 1
        d.add(f"fact number {self.counter} says token{self.counter:04d}x lives here")

    def add_other(self, d: Device, action: tuple[Any, ...]) -> None:
        self.counter += 1
        d.add(f"other user's fact {self.counter} says token{self.counter:04d}x", user=OTHER_USER)

    def grant(self, d: Device, action: tuple[Any, ...]) -> None:
        d.grant(OTHER_USER, f"agent-{self.counter}")

    def forget_user(self, d: Device, action: tuple[Any, ...]) -> None:
        self.forgotten_grants += [
            r[0]
            for r in d.store.query(
                "SELECT id FROM grants WHERE subject = ? OR object = ?", (OTHER_USER, OTHER_USER)
            )
        ]
        self.forgotten += d.forget_user(OTHER_USER)

    def run(self, d: Device, action: tuple[Any, ...]) -> None:
        d.service.run()

    def deliver_some(self, d: Device, action: tuple[Any, ...]) -> None:
        dst = self.devices[action[2]]
        files = own_files(d)
        if dst is not d and files:
            deliver(d, dst, [files[i % len(files)] for i in action[3]])

    def update(self, d: Device, target: str, action: tuple[Any, ...]) -> None:
        self.counter += 1
        d.update(target, f"revised fact {self.counter} now says token{self.counter:04d}x instead")

    def feedback(self, d: Device, target: str, action: tuple[Any, ...]) -> None:
        d.feedback(target, action[3])

    def reject(self, d: Device, target: str, action: tuple[Any, ...]) -> None:
        d.reject(target)

    def retract(self, d: Device, target: str, action: tuple[Any, ...]) -> None:
        d.retract(target)

    def forget(self, d: Device, target: str, action: tuple[Any, ...]) -> None:
        self.forgotten += d.forget(target)


_ON_THE_DEVICE: dict[str, Callable[[_Play, Device, tuple[Any, ...]], None]] = {
    "add": _Play.add,
    "add_other": _Play.add_other,
    "grant": _Play.grant,
    "forget_user": _Play.forget_user,
    "run": _Play.run,
    "deliver": _Play.deliver_some,
}
_ON_A_MEMORY: dict[str, Callable[[_Play, Device, str, tuple[Any, ...]], None]] = {
    "update": _Play.update,
    "feedback": _Play.feedback,
    "reject": _Play.reject,
    "retract": _Play.retract,
    "forget": _Play.forget,
}


def _assert_converged_without_what_was_forgotten(play: _Play) -> None:
    devices = play.devices
    hashes = {d.name: state_hash(d.store) for d in devices}
    assert len(set(hashes.values())) == 1, hashes
    for d in devices:
        report = ledger_verify.verify(d.store)
        assert report.ok, (d.name, report)
        status = d.service.status()
        assert status["refused"] == [] and status["waiting"] == [], status
        assert all(c["problem"] is None for c in status["chains"])
        store_text = all_rows_text(d.store)
        folder_text = "\n".join(folder_plaintext(d))
        for text in play.forgotten:
            assert text not in store_text, (d.name, text)
            assert text not in folder_text, (d.name, text)
        assert d.unrecorded_rejections() == [], d.name
        assert not [
            g for g in play.forgotten_grants if d.store.query_one("SELECT 1 FROM grants WHERE id = ?", (g,))
        ], d.name
        # Only the keys the folder still needs are kept.
        assert status["keys_held"] == 1


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=4, max_size=18))
def test_three_devices_converge_and_forget_everywhere_whatever_the_delivery(steps: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        devices = make_devices(Path(tmp), ["a", "b", "c"])
        play = _Play(devices)
        try:
            for action in steps:
                play.step(action)
            converge(devices)
            _assert_converged_without_what_was_forgotten(play)
        finally:
            for d in devices:
                d.store.close()
