"""Add, import and derive report in one type (core/write/results.py): ``AddResult``, whose lists hold
``Entry`` lines; the entries the real write path produces are the ones ``Entry`` describes."""

from __future__ import annotations

import typing

from veramem_desktop.core.write import results
from veramem_desktop.core.write.derive import Writer
from veramem_desktop.core.write.results import ENTRY_LISTS, AddResult, Entry

from veramem_desktop.memory import Memory
from veramem_desktop.services import importer, writes


def test_add_import_and_derive_return_the_one_result_type() -> None:
    returns = {
        "Writer.derive": typing.get_type_hints(Writer.derive)["return"],
        "import's derive": typing.get_type_hints(importer._derive)["return"],
        "add": typing.get_type_hints(writes.Writes.add)["return"],
    }
    assert returns == dict.fromkeys(returns, AddResult)
    assert [name for name in vars(results) if name.endswith(("Outcome", "Result"))] == ["AddResult"]


def test_a_result_extended_by_another_keeps_both_in_order() -> None:
    first = AddResult(added=[{"text": "a", "reason": "new"}], notices=["one"], forgotten=2)
    first.extend(
        AddResult(
            added=[{"text": "b", "reason": "new"}],
            rejected=[{"text": "c", "reason": "its quote was not found"}],
            notices=["two"],
            forgotten=5,
        )
    )
    assert [e["text"] for e in first.added] == ["a", "b"]
    assert [e["text"] for e in first.rejected] == ["c"]
    assert first.notices == ["one", "two"] and first.forgotten == 2 and first.episodes == []


def _check(entry: dict[str, object]) -> None:
    """An entry has Entry's required keys, no key Entry does not name, and strings in each."""
    hints = typing.get_type_hints(Entry, include_extras=True)  # (results.py's annotations are postponed)
    required = {key for key, hint in hints.items() if typing.get_origin(hint) is not typing.NotRequired}
    assert required == {"text", "reason"}
    assert set(entry) <= set(hints), f"keys Entry does not name: {set(entry) - set(hints)}"
    assert required <= set(entry)
    assert all(isinstance(v, str) for v in entry.values())


def test_the_entries_the_write_path_reports_are_the_ones_entry_describes(mem: Memory) -> None:
    said = [
        "I live in Lisbon.",
        "I moved to Porto.",
        "I live in Porto.",
        "I no longer live in Porto.",
        "My favourite colour is green.",
    ]
    seen: dict[str, int] = dict.fromkeys(ENTRY_LISTS, 0)
    for text in said:
        result = mem.add(text, user_id="u1")
        for name in ENTRY_LISTS:
            for entry in getattr(result, name):
                _check(entry)
                seen[name] += 1
    green = next(m for m in mem.reading.memories(user_id="u1") if "green" in m.text)
    mem.review.reject(green.id)
    again = mem.add("My favourite colour is green.", user_id="u1")
    for entry in again.rejected:
        _check(entry)
    seen["rejected"] += len(again.rejected)
    assert {name for name, n in seen.items() if n} == set(ENTRY_LISTS), seen
    assert all(set(e) >= {"id", "kind", "authority"} for e in mem.add("I live in Faro.", user_id="u1").added)
