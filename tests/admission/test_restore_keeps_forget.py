"""Restoring a backup made before a forget or a rejection brings nothing forgotten or rejected back (the
real CLI).

Going back behind a forget is a person's explicit act (``restore --force``: every forget writes newer
ledger entries). The restore carries over what the replaced store forgot and forgets it again in the
restored copy before it takes the store's place: the backup's other content comes back, the forgotten
message does not, and the ledger verifies.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE, run_cli
from support.internals import store_of

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

SECRET = "My locker code at the climbing gym is 4471."
KEPT = "The tomatoes go in the south bed."


def _open(home: Path) -> Memory:
    config = Config()
    config.organise.linking = False
    config.llm.backend = "rule-based"
    return Memory(home, embedder=HashEmbedder(), config=config)


def _holding(mem: Memory, words: str) -> int:
    store = store_of(mem)
    eps = store.query("SELECT count(*) FROM episodes WHERE content LIKE ?", (f"%{words}%",))[0][0]
    mems = store.query("SELECT count(*) FROM memory_items WHERE text LIKE ?", (f"%{words}%",))[0][0]
    return int(eps) + int(mems)


def test_restoring_a_backup_made_before_a_forget_keeps_it_forgotten(
    isolated_home: Path, tmp_path: Path
) -> None:
    config = Config()
    config.organise.linking = False
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    [stored] = mem.add(SECRET, session_id="s").episodes
    secret = stored.id
    mem.add(KEPT, session_id="t")
    mem.add("I live in Berlin.", session_id="u")
    mem.close()
    backup = tmp_path / "before.db"
    env = {"VERAMEM_HOME": str(isolated_home)}
    done = run_cli("backup", str(backup), env=env)
    assert done.returncode == 0, done.stderr
    assert run_cli("forget", secret, "--yes", env=env).returncode == 0
    mem = _open(isolated_home)
    [berlin] = [m for m in mem.memories() if "Berlin" in m.text]
    mem.review.reject(berlin.id, "wrong")
    mem.close()
    refused = run_cli("restore", str(backup), env=env)
    assert refused.returncode != 0 and "--force" in refused.stderr  # a person's explicit act
    restored = run_cli("restore", str(backup), "--force", "--json", env=env)
    assert restored.returncode == 0, restored.stderr
    notes = json.loads(restored.stdout)["notes"]
    assert any("applied again" in n for n in notes), notes
    mem = _open(isolated_home)
    try:
        assert _holding(mem, "locker code") == 0
        assert _holding(mem, "tomatoes") >= 1
        assert mem.verify().ok
        # the rejection made after the backup holds too: the value is rejected and reaches no search
        assert mem.get(berlin.id).trust == "rejected"
        assert not any("Berlin" in h.text for h in mem.search("where do I live Berlin").results)
        # and the marks came with it: the same message brought back with its time is refused
        again = mem.add({"role": "user", "content": SECRET, "time": stored.event_time})
        assert again.forgotten == 1 and not again.episodes
    finally:
        mem.close()


def test_restoring_a_backup_made_before_a_rejection_keeps_it_rejected(
    isolated_home: Path, tmp_path: Path
) -> None:
    config = Config()
    config.organise.linking = False
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    mem.add("I live in Berlin.")
    mem.close()
    backup = tmp_path / "before.db"
    env = {"VERAMEM_HOME": str(isolated_home)}
    assert run_cli("backup", str(backup), env=env).returncode == 0
    mem = _open(isolated_home)
    [berlin] = [m for m in mem.memories() if "Berlin" in m.text]
    mem.review.reject(berlin.id, "wrong")
    mem.close()
    restored = run_cli("restore", str(backup), "--force", env=env)
    assert restored.returncode == 0, restored.stderr
    mem = _open(isolated_home)
    try:
        assert mem.get(berlin.id).trust == "rejected"
        assert mem.verify().ok
    finally:
        mem.close()
