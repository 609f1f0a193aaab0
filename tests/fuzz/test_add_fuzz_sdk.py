"""Fuzzing `Memory.add` (the SDK, and under it REST and MCP): every generated payload ends in a
result or a documented error (a VeramemError whose exit code is not 1), the ledger verifies
afterwards, and what was stored before is still there."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from support.internals import store_of
from veramem_desktop.core.errors import ExitCode, VeramemError

from veramem_desktop.memory import Memory

from .strategies import sdk_payloads

pytestmark = pytest.mark.slow

#: cases per run; raise it for a longer hunt (VERAMEM_FUZZ_EXAMPLES=5000)
EXAMPLES = int(os.environ.get("VERAMEM_FUZZ_EXAMPLES", "300"))
#: set (to anything) for new random cases on each run instead of the same fixed ones
RANDOM = os.environ.get("VERAMEM_FUZZ_RANDOM")


def test_no_generated_add_payload_crashes_loses_memory_or_breaks_the_ledger(fuzz_mem: Memory) -> None:
    seeded = fuzz_mem.add("I live in Lisbon and I like green tea.", user_id="seed")
    seed_items = [d["id"] for d in seeded.added]
    seed_episode = seeded.episodes[0].id
    assert seed_items
    outcomes = {"stored": 0, "refused": 0}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=RANDOM is None,
        suppress_health_check=list(HealthCheck),
    )
    @given(payload=sdk_payloads)
    def run(payload: Any) -> None:
        try:
            result = fuzz_mem.add(payload, session_id="fuzz")
        except VeramemError as exc:
            assert exc.exit_code != ExitCode.FAILURE, f"{type(exc).__name__}: {exc.message}"
            assert exc.message and "\n" not in exc.message
            outcomes["refused"] += 1
            return
        outcomes["stored"] += 1
        # What a surface prints must be printable: UTF-8 JSON without lone surrogates.
        json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")

    run()
    assert outcomes["stored"] > 20 and outcomes["refused"] > 20, outcomes  # both sides were exercised
    report = fuzz_mem.verify()
    assert report.ok, report.to_dict()
    assert all(fuzz_mem.get(i).status == "active" for i in seed_items)
    assert fuzz_mem.reading.episode(seed_episode) is not None
    assert store_of(fuzz_mem).integrity_problems() == []
