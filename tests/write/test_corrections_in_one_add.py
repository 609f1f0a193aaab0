"""A correction in the same add as the value it corrects ("I moved to Lisbon. Sorry, I meant Porto." in
one message, two consecutive messages of one add, or of one import batch) ends as it does when the two
are added one by one: one current memory (Porto) whose earlier version is Lisbon, with
``corrects: "Lisbon"``, and recall shows Porto as current; a retraction ("I have a Volvo." then "I
sold the Volvo.") likewise retracts the value said before it. The correction and the retraction see
the memories planned earlier in the same add (core/write/same_add.py), of the same person only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.fixtures import PASSPHRASE

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

T1, T2 = "2024-06-01T09:00:00Z", "2024-06-01T09:01:00Z"


def _user(content: str, time: str = T1, name: str | None = None) -> dict[str, Any]:
    return {"role": "user", "content": content, "time": time, **({"name": name} if name else {})}


def _state(mem: Memory) -> list[tuple[str, str, str | None]]:
    """Every memory's status, words and the value it corrects, oldest first."""
    rows = sorted(mem.memories(status=None, limit=100), key=lambda m: (m.valid_from, m.version, m.id))
    return [(m.status, m.text, (m.metadata.get("corrects") or {}).get("wrong")) for m in rows]


def _rule_based(home: Path) -> Memory:
    config = Config()
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    return mem


CASES = [
    ("I moved to Lisbon.", "Sorry, I meant Porto."),
    ("I moved to Lisbon in March 2024.", "Actually I moved to Porto, not Lisbon."),
    ("I work at Acme.", "Sorry, I meant Globex."),
]


@pytest.mark.parametrize(("said", "fix"), CASES)
def test_a_correction_in_the_same_message_ends_as_if_said_one_by_one(
    rmem: Memory, tmp_path: Path, said: str, fix: str
) -> None:
    rmem.add(_user(f"{said} {fix}"))
    apart = _rule_based(tmp_path / "apart")
    try:
        apart.add(_user(said))
        apart.add(_user(fix))
        assert _state(rmem) == _state(apart)
    finally:
        apart.close()
    (current,) = [m for m in rmem.memories(limit=100)]
    (old, new) = rmem.history(current.id)
    assert (old.status, new.status) == ("superseded", "active")
    assert new.metadata["corrects"] == {"id": old.id, "wrong": "Lisbon" if "Lisbon" in said else "Acme"}


def test_two_consecutive_messages_of_one_add_correct_as_one_by_one(rmem: Memory) -> None:
    result = rmem.add([_user("I moved to Lisbon.", T1), _user("Sorry, I meant Porto.", T2)])
    (current,) = rmem.memories(limit=100)
    assert current.text == "User moved to Porto." and len(result.updated) == 1, result
    (old, new) = rmem.history(current.id)
    assert old.text == "User moved to Lisbon." and old.valid_to == new.valid_from
    assert new.valid_from.startswith("2024-06-01T09:01") and new.metadata["corrects"]["wrong"] == "Lisbon"
    first = rmem.search("Where do I live?").results[0]
    assert "Porto" in first.text and first.state in ("current", "raw"), first
    assert "Lisbon" not in rmem.answer("Where do I live?").text.split("(")[0]


def test_a_correction_in_one_import_batch_corrects_the_value_imported_before_it(
    rmem: Memory, tmp_path: Path
) -> None:
    export = tmp_path / "chat.json"
    turns = [("I moved to Lisbon.", T1), ("Sorry, I meant Porto.", T2)]
    export.write_text(
        json.dumps([{"role": "user", "content": c, "session_id": "s", "time": t} for c, t in turns]),
        encoding="utf-8",
    )
    assert rmem.import_history(export, batch_size=10).stored == 2
    assert [(s, t) for s, t, _ in _state(rmem)] == [
        ("superseded", "User moved to Lisbon."),
        ("active", "User moved to Porto."),
    ]
    assert _state(rmem)[1][2] == "Lisbon"


def test_a_correction_in_one_add_never_corrects_another_persons_value(rmem: Memory) -> None:
    rmem.add([_user("I moved to Lisbon.", T1, name="Mel"), _user("Sorry, I meant Porto.", T2)])
    assert ("active", "Mel moved to Lisbon.", None) in _state(rmem)
    assert all(status == "active" and corrects is None for status, _, corrects in _state(rmem))


def test_a_retraction_in_the_same_add_retracts_the_value_said_before_it(rmem: Memory, tmp_path: Path) -> None:
    rmem.add([_user("I have a Volvo.", T1), _user("I sold the Volvo.", T2)])
    apart = _rule_based(tmp_path / "apart")
    try:
        apart.add(_user("I have a Volvo.", T1))
        apart.add(_user("I sold the Volvo.", T2))
        assert _state(rmem) == _state(apart) == [("retracted", "User has a Volvo.", None)]
    finally:
        apart.close()
    hits = rmem.search("What car do I have?").results
    assert hits[0].text == "I sold the Volvo." and all(h.state != "current" or "sold" in h.text for h in hits)
