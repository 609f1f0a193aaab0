"""The gate's rule as a property, over a real encrypted store: an episode marked forgotten is refused
whenever it comes again with its import key, or with its role, words and time; the same words at
another time with no import key (a person typing them later) are admitted."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.trust import admission

words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=60)
times = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1)).map(
    lambda t: t.replace(tzinfo=UTC, microsecond=0)
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=words, role=st.sampled_from(["user", "assistant", "tool"]), when=times, key=st.none() | words)
def test_a_forgotten_episode_is_refused_and_a_later_telling_is_not(
    tmp_path: Path, content: str, role: str, when: datetime, key: str | None
) -> None:
    store = Store.open(tmp_path / f"{os.urandom(4).hex()}.db", os.urandom(32), create=True)
    try:
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        forgotten = admission.Incoming(role, content, "me", stamp, key)
        with store.atomic() as conn:
            admission.mark_forgotten(conn, [("ep_x", forgotten)], when="2026-12-04T00:00:00Z")
        again = [
            admission.Incoming(
                role, content, "me", when.isoformat(), key
            ),  # the same episode, time spelled apart
            admission.Incoming(role, content, "me", stamp, None),  # a memory export without its import key
        ]
        later = admission.Incoming(role, content, "me", (when + timedelta(minutes=5)).isoformat(), None)
        other_user = admission.Incoming(role, content, "someone else", stamp, None)
        with store.read() as conn:
            screened = admission.screen(conn, [*again, later, other_user])
        assert sorted(screened.forgotten) == [0, 1]
        assert screened.admitted == [2, 3]
        assert screened.notice() == "2 skipped: you forgot them on 2026-12-04"
        if key is not None:  # a re-import under the same key at another time is the same episode
            moved = admission.Incoming(role, content + " (edited)", "me", None, key)
            with store.read() as conn:
                assert admission.screen(conn, [moved]).forgotten
    finally:
        store.close()
