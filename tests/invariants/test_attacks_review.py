"""Attacks from the review of issue 30 that once got through, each held by the mechanism it went around.

A real SQLCipher store, the real embedder, the rule-based backend (the ``rmem`` fixture).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.internals import store_of

from veramem_desktop.memory import Memory

SECRET = "I moved to Valparaiso in March 2023."
WHEN = "2023-03-05T10:00:00Z"


def _holding(mem: Memory, words: str) -> int:
    store = store_of(mem)
    eps = store.query("SELECT count(*) FROM episodes WHERE content LIKE ?", (f"%{words}%",))[0][0]
    mems = store.query("SELECT count(*) FROM memory_items WHERE text LIKE ?", (f"%{words}%",))[0][0]
    return int(eps) + int(mems)


@pytest.mark.parametrize(
    "variant",
    [
        "I moved to V\u0430lparaiso in March 2023.",  # a Cyrillic a
        "I moved to Valparai\u0301so in March 2023.",  # an accent added
        "I moved to Valpara\u00edso in March 2023.",  # the accented letter itself
    ],
    ids=["cyrillic", "combining-accent", "precomposed-accent"],
)
def test_a_forgotten_message_in_look_alike_letters_at_its_time_is_refused(
    rmem: Memory, tmp_path: Path, variant: str
) -> None:
    """The same message, re-imported from a file edited to spell it with look-alike letters (and so
    under a new import key), is the same message: the gate's marks compare the confusable skeleton."""
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps({"role": "user", "content": SECRET, "time": WHEN}) + "\n")
    rmem.import_history(first)
    [(episode_id,)] = store_of(rmem).query("SELECT id FROM episodes")
    rmem.forget(episode_id)
    edited = tmp_path / "edited.jsonl"
    edited.write_text(json.dumps({"role": "user", "content": variant, "time": WHEN}) + "\n")
    report = rmem.import_history(edited)
    assert report.stored == 0 and report.forgotten == 1
    assert store_of(rmem).query("SELECT count(*) FROM episodes")[0][0] == 0
