"""The truth-natural data (issue 29) is frozen and has the shape its section relies on."""

from __future__ import annotations

import hashlib
from collections import Counter

from veramem_desktop.bench.truth_natural_section import DATA, SETS, held_out, load

#: the data file as written before any tuning (commit f491b35); a third of it is the held-out part
FROZEN_SHA256 = "ae3f0422fcb5d9d6315162d4ef1799b2515c3c1ea6dd6d859e9dd39fa8dd2216"
#: the blind sets as their authors wrote them, each committed before any tuning on it (commits 88109d8,
#: b3bbb8b, and the ones adding blind-3, blind-4 and blind-5)
BLIND_SHA256 = {
    "blind": "3673413d8eb5fb9e9f26da3ecc55962e20cc0b450c666f04e5c1f84fa641952b",
    "blind-2": "800c411baca4df3f29604400fcad68cf355b5bd25350a46146930e3ec2140f69",
    "blind-3": "8a73dbd7dbe1278e0518266d4b433e2ec365241f582e3249b8ebe268471d3da2",
    "blind-4": "673c6df0df7883a5fbf751a4bcc07df1ff7909da46b90126d6e44148f4989e7c",
    "blind-5": "5a7f995210c73b7e2349a08e3751387d4e57853e4b9a2fdec176a1cd247b7948",
}
KINDS = {
    "no_i",
    "we",
    "new_words",
    "implied",
    "other_person",
    "past_mention",
    "chain",
    "assistant_echo",
    "request",
    "date_plan",
    "duration",
    "document",
}


def test_the_data_file_is_frozen() -> None:
    digest = hashlib.sha256(DATA.read_bytes()).hexdigest()
    assert digest == FROZEN_SHA256, (
        "truth_natural.json changed: the held-out part is frozen (it was fixed before any tuning and its "
        "failures are not to be read). Add new histories in a new data file rather than editing this one."
    )


def test_the_blind_sets_are_frozen_and_each_set_keeps_its_own_held_out_third() -> None:
    assert SETS[0] == ("first", DATA)
    for name, path in SETS[1:]:
        assert hashlib.sha256(path.read_bytes()).hexdigest() == BLIND_SHA256[name], (
            f"{path.name} changed: it was committed before any tuning on it; add a new set instead."
        )
    joined = load()
    position = 0
    for name, path in SETS:
        own = load(path)
        assert [h["set"] for h in own] == [name] * len(own)
        for index, history in enumerate(own):  # held out by its position in its own file
            assert joined[position + index]["id"] == history["id"]
            assert joined[position + index]["held_out"] == held_out(index), history["id"]
        position += len(own)
    assert position == len(joined)


def test_the_data_has_enough_histories_of_two_to_six_sessions_in_time_order() -> None:
    histories = load()
    assert len(histories) >= 80
    assert len({h["id"] for h in histories}) == len(histories)
    for h in histories:
        assert 2 <= len(h["sessions"]) <= 6, h["id"]
        times = [m["time"] for s in h["sessions"] for m in s["messages"]]
        assert times == sorted(times), h["id"]
        assert {m["role"] for s in h["sessions"] for m in s["messages"]} <= {"user", "assistant"}
        assert set(h["kinds"]) <= KINDS, h["id"]
        assert h["questions"], h["id"]
        for q in h["questions"]:
            assert q["type"] in {"current", "asof"} and q["expect"] and q["whose"], q["id"]
            assert q["type"] == "current" or q["as_of"][:2] == "20", q["id"]


def test_the_questions_are_many_and_a_quarter_ask_as_of_a_time() -> None:
    questions = [q for h in load() for q in h["questions"]]
    kinds = Counter(q["type"] for q in questions)
    assert len(questions) >= 120 and kinds["asof"] >= 25, kinds
    assert sum(q["whose"] != "user" for q in questions) >= 15  # other people's attributes


def test_the_held_out_third_and_the_dev_part_each_cover_every_kind() -> None:
    histories = load()
    held = [h for h in histories if h["held_out"]]
    dev = [h for h in histories if not h["held_out"]]
    assert len(held) == sum(len(load(path)) // 3 for _, path in SETS)  # a third of each set
    for part in (held, dev):
        assert {k for h in part for k in h["kinds"]} == KINDS
