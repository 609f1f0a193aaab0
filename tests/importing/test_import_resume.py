"""An import killed midway (SIGKILL) resumes and ends with the same store as an uninterrupted one."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from import_support import T0, chatgpt_conversation, write_json
from support.fixtures import PASSPHRASE, VENV_BIN
from support.internals import store_of

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

SENTENCES = [
    "I moved to {} last spring.",
    "My sister works as a {} in town.",
    "We adopted a cat named {}.",
    "I am learning to play the {}.",
    "Our team meets every {} morning.",
    "I prefer {} tea in the evening.",
]
WORDS = [
    "Lisbon",
    "nurse",
    "Miso",
    "cello",
    "Monday",
    "green",
    "Porto",
    "teacher",
    "Pepper",
    "drums",
    "Friday",
    "black",
]
BATCH = "6"


def _export(tmp_path: Path) -> Path:
    convs = []
    for c in range(8):
        turns = []
        for t in range(10):
            role = "user" if t % 2 == 0 else "assistant"
            text = SENTENCES[(c + t) % len(SENTENCES)].format(WORDS[(c * 3 + t) % len(WORDS)])
            turns.append((role, text if role == "user" else f"Noted: {text[0].lower()}{text[1:]}"))
        convs.append(chatgpt_conversation(f"conv-{c}", f"chat {c}", turns, start=T0 + c * 86_400))
    return write_json(tmp_path / "export" / "conversations.json", convs)


def _new_home(home: Path) -> None:
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = False
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    mem.close()


def _state(home: Path) -> dict[str, Any]:
    mem = Memory(home, passphrase=PASSPHRASE)
    try:
        episodes = sorted(
            tuple(r)
            for r in store_of(mem).query(
                "SELECT session_id, turn_index, sha256, role, event_time, json_extract(metadata, '$.import_key') "
                "FROM episodes"
            )
        )
        memories = sorted(
            tuple(r)
            for r in store_of(mem).query(
                "SELECT session_id, text, kind, status, authority, valid_from, version FROM memory_items"
            )
        )
        return {"episodes": episodes, "memories": memories, "verified": mem.verify().ok}
    finally:
        mem.close()


@pytest.mark.slow
@pytest.mark.e2e
def test_an_import_killed_midway_resumes_to_the_same_store_as_an_uninterrupted_one(tmp_path: Path) -> None:
    export = _export(tmp_path)
    total = 80
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    _new_home(killed)
    _new_home(whole)
    env = {
        **os.environ,
        "VERAMEM_HOME": str(killed),
        "VERAMEM_PASSPHRASE": PASSPHRASE,
        "VERAMEM_NO_KEYRING": "1",
    }
    proc = subprocess.Popen(
        [str(VENV_BIN / "veramem"), "import", str(export), "--batch", BATCH, "--json"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    watcher = Memory(killed, passphrase=PASSPHRASE)  # opened once: unlocking takes a while
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if int(store_of(watcher).query_one("SELECT count(*) FROM episodes")[0]) >= 2 * int(BATCH):
                break
            time.sleep(0.02)
        assert proc.poll() is None, f"the import ended (exit {proc.returncode}) before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        watcher.close()
        if proc.poll() is None:
            proc.kill()
    state = _state(killed)
    partial = len(state["episodes"])
    assert 0 < partial < total and partial % int(BATCH) == 0, partial  # whole batches only
    assert state["verified"]

    for home in (killed, whole):
        mem = Memory(home, passphrase=PASSPHRASE)
        try:
            report = mem.import_history(export, batch_size=int(BATCH))
        finally:
            mem.close()
        assert report.stored == (total - partial if home == killed else total)
        assert report.already_stored == (partial if home == killed else 0)
    resumed, uninterrupted = _state(killed), _state(whole)
    assert len(resumed["episodes"]) == total
    assert resumed == uninterrupted
    assert resumed["verified"]
