"""A row's per-field clocks are kept in ``sync_rows`` as JSON text (sync/rows.dump_state): orjson writes
it unless a value is a float that is not finite, which orjson would turn into null. Whatever the values,
the text reads back (json.loads, as load_state reads it) as the same clocks, in a real store too."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import rows

CLOCK = "001796131764039-0000000e-ad4ed486cc1110cb"

values = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and both infinities among them
    | st.text()
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(rows.MEMORY_LWW), values, max_size=len(rows.MEMORY_LWW)))
def test_a_rows_clocks_read_back_as_they_were_written(fields: dict[str, Any]) -> None:
    state = {name: [value, CLOCK] for name, value in fields.items()}
    back = json.loads(rows.dump_state(state))
    assert sorted(back) == sorted(state)
    for name, (value, clock) in state.items():
        assert _same(back[name][0], value), name
        assert back[name][1] == clock


@pytest.mark.parametrize("odd", [math.nan, math.inf, -math.inf])
def test_a_float_that_is_not_finite_is_kept_not_turned_into_null(odd: float) -> None:
    back = json.loads(rows.dump_state({"confidence": [odd, CLOCK], "status": ["active", CLOCK]}))
    assert _same(back["confidence"][0], odd)


def test_clocks_saved_in_a_store_load_back_the_same(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.db", os.urandom(32), create=True)
    try:
        states = {
            "mem_a": {
                "confidence": [0.7, CLOCK],
                "metadata": ['{"k": "caf\u00e9"}', CLOCK],
                "valid_to": [None, CLOCK],
            },
            "mem_b": {"importance": [math.inf, CLOCK], "pinned": [1, CLOCK]},
        }
        with store.atomic() as conn:
            rows.save_states(conn, states)
        with store.read() as conn:
            for row_id, state in states.items():
                assert rows.load_state(conn, row_id) == state
    finally:
        store.close()
