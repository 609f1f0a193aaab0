"""Kill -9 in the middle of writes, and several processes writing at once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.internals import store_of
from veramem_desktop.core.storage import episodes
from veramem_desktop.core.storage.canonical import text_sha256

from veramem_desktop.memory import Memory

TESTS = Path(__file__).resolve().parents[1]


def _spawn(home: Path, seconds: float, tag: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    return subprocess.Popen(
        [sys.executable, "-m", "support.writer", str(home), str(seconds), tag],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _assert_whole(home: Path) -> set[str]:
    mem = Memory(home)
    try:
        report = mem.verify()
        assert report.ok, report.problem
        store = store_of(mem)
        rows = store.query(f"SELECT {episodes.EPISODE_COLUMNS} FROM episodes")
        ledgered = {r[0] for r in store.query("SELECT target_id FROM ledger WHERE op = 'episode.add'")}
        indexed = {r[0] for r in store.query("SELECT owner_id FROM fts_rows WHERE owner_kind = 'episode'")}
        ids = set()
        for row in rows:
            ep = episodes.row_to_episode(row)
            assert text_sha256(ep.content) == ep.sha256, "half-written episode"
            assert ep.id in ledgered and ep.id in indexed, "episode without its ledger entry or index row"
            ids.add(ep.id)
        assert len(ledgered) == len(ids)
        return ids
    finally:
        mem.close()


@pytest.mark.slow
def test_sigkill_at_random_moments_never_leaves_a_broken_store(mem: Memory, isolated_home: Path) -> None:
    mem.close()
    rng = random.Random(20261130)
    confirmed: set[str] = set()
    for _round in range(20):
        child = _spawn(isolated_home, 30, f"crash{_round}")
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.4))
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate()
        confirmed |= {line for line in out.split() if line.startswith("ep_")}
        present = _assert_whole(isolated_home)
        assert confirmed <= present, "an episode reported as stored is gone"


@pytest.mark.slow
def test_three_processes_writing_for_twenty_seconds_lose_nothing(mem: Memory, isolated_home: Path) -> None:
    mem.close()
    children = [_spawn(isolated_home, 20, f"proc{i}") for i in range(3)]
    told: set[str] = set()
    for child in children:
        out, err = child.communicate(timeout=180)
        assert child.returncode == 0, err[-2000:]
        assert "locked" not in err.lower() and "busy" not in err.lower(), err[-2000:]
        told |= {line for line in out.split() if line.startswith("ep_")}
    assert len(told) > 30
    assert told <= _assert_whole(isolated_home)
