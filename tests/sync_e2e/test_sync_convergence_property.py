"""Three devices, random work, random delivery: every device ends in the same state, nothing
forgotten (a memory, or a whole secondary user with their grants) survives in any store or in
any copy of the folder, and every device knows every rejection it holds a rejected row of."""

from __future__ import annotations

import tempfile
from pathlib import Path

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


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=4, max_size=18))
def test_three_devices_converge_and_forget_everywhere_whatever_the_delivery(steps: list[tuple]) -> None:  # noqa: C901
    with tempfile.TemporaryDirectory() as tmp:
        devices = make_devices(Path(tmp), ["a", "b", "c"])
        forgotten: list[str] = []
        forgotten_grants: list[str] = []
        counter = 0
        try:
            for action in steps:
                kind, d = action[0], devices[action[1]]
                if kind == "add":
                    counter += 1
                    d.add(f"fact number {counter} says token{counter:04d}x lives here")
                elif kind == "add_other":
                    counter += 1
                    d.add(f"other user's fact {counter} says token{counter:04d}x", user=OTHER_USER)
                elif kind == "grant":
                    d.grant(OTHER_USER, f"agent-{counter}")
                elif kind == "reject" and (target := _pick(d, action[2])):
                    d.reject(target)
                elif kind == "forget_user":
                    forgotten_grants += [
                        r[0]
                        for r in d.store.query(
                            "SELECT id FROM grants WHERE subject = ? OR object = ?", (OTHER_USER, OTHER_USER)
                        )
                    ]
                    forgotten += d.forget_user(OTHER_USER)
                elif kind == "update" and (target := _pick(d, action[2])):
                    counter += 1
                    d.update(target, f"revised fact {counter} now says token{counter:04d}x instead")
                elif kind == "feedback" and (target := _pick(d, action[2])):
                    d.feedback(target, action[3])
                elif kind == "retract" and (target := _pick(d, action[2])):
                    d.retract(target)
                elif kind == "forget" and (target := _pick(d, action[2])):
                    forgotten += d.forget(target)
                elif kind == "run":
                    d.service.run()
                elif kind == "deliver":
                    dst = devices[action[2]]
                    files = own_files(d)
                    if dst is not d and files:
                        deliver(d, dst, [files[i % len(files)] for i in action[3]])
            converge(devices)

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
                for text in forgotten:
                    assert text not in store_text, (d.name, text)
                    assert text not in folder_text, (d.name, text)
                assert d.unrecorded_rejections() == [], d.name
                assert not [
                    g
                    for g in forgotten_grants
                    if d.store.query_one("SELECT 1 FROM grants WHERE id = ?", (g,))
                ], d.name
                # Only the keys the folder still needs are kept.
                assert status["keys_held"] == 1
        finally:
            for d in devices:
                d.store.close()
