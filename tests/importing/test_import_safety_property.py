"""Malformed records of any JSON type: a mutated ChatGPT or Claude export never makes the reader
raise anything but the project's typed errors, the mutated conversation costs at most itself, and
every good conversation around it is read whole."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from import_support import chatgpt_conversation, chatgpt_export, claude_export
from veramem_desktop.core.errors import VeramemError
from veramem_desktop.core.transfer.chatgpt import chatgpt_items
from veramem_desktop.core.transfer.chats import open_source
from veramem_desktop.core.transfer.claude import claude_items
from veramem_desktop.core.transfer.records import Problem, Record

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    """Every place in a JSON value (the keys and indexes leading to it)."""
    found = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*here, i))
    return found


def _mutate(conv: Any, place: tuple, new: Any, drop: bool) -> Any:
    if not place:
        return new
    target = conv
    for step in place[:-1]:
        target = target[step]
    if drop and isinstance(target, dict):
        del target[place[-1]]
    else:
        target[place[-1]] = new
    return conv


@st.composite
def mutated(draw: st.DrawFn, conversations: list[dict[str, Any]]) -> tuple[int, Any]:
    """One conversation of ``conversations`` with one to three places replaced by any JSON value
    (or removed), and its index."""
    index = draw(st.integers(0, len(conversations) - 1))
    conv: Any = copy.deepcopy(conversations[index])
    for _ in range(draw(st.integers(1, 3))):
        places = _paths(conv)
        place = draw(st.sampled_from(places))
        conv = _mutate(conv, place, draw(json_values), draw(st.booleans()))
    return index, conv


def _good(conv_id: str) -> dict[str, Any]:
    return chatgpt_conversation(conv_id, conv_id, [("user", f"{conv_id}: I water the plants on Sundays.")])


def _read(path: Path, fmt: str) -> list[Any]:
    try:
        return list(open_source(path, fmt).items())
    except VeramemError:
        return []  # a typed refusal of the whole file is allowed only when nothing is readable


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_chatgpt_conversation_costs_at_most_itself(tmp_path: Path, data: st.DataObject) -> None:
    index, conv = data.draw(mutated(chatgpt_export()))
    # the reader of one conversation never raises, whatever the types in it
    items = list(chatgpt_items(conv, 0)) if isinstance(conv, dict) else []
    assert all(isinstance(i, (Record, Problem)) for i in items)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([_good("before"), conv, _good("after")]))
    read = _read(path, "chatgpt")
    contents = [i.content for i in read if isinstance(i, Record)]
    assert contents[0] == "before: I water the plants on Sundays."
    assert contents[-1] == "after: I water the plants on Sundays."


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_claude_conversation_costs_at_most_itself(tmp_path: Path, data: st.DataObject) -> None:
    good = claude_export()
    index, conv = data.draw(mutated(good))
    items = list(claude_items(conv, 0)) if isinstance(conv, dict) else []
    assert all(isinstance(i, (Record, Problem)) for i in items)
    others = [c for n, c in enumerate(good) if n != index]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([*others[:1], conv, *others[1:]]))
    read = _read(path, "claude")
    sessions = {i.session_id for i in read if isinstance(i, Record)}
    assert {f"claude:{c['uuid']}" for c in others} <= sessions
    expected = sum(1 for c in others for m in c["chat_messages"])
    kept = [
        i for i in read if isinstance(i, Record) and i.session_id in {f"claude:{c['uuid']}" for c in others}
    ]
    assert len(kept) == expected


def test_the_reported_shapes_are_listed_problems_not_errors(tmp_path: Path) -> None:
    """The shapes that once ended an import with 'a bug' (exit 1): a current_node that is a list, a
    parent that is an object, a mapping that is text, parts that are not text."""
    shapes = []
    for n, change in enumerate(
        [
            lambda c: c.__setitem__("current_node", ["x"]),
            lambda c: c["mapping"][c["current_node"]].__setitem__("parent", {"id": "root"}),
            lambda c: c.__setitem__("mapping", "not a tree"),
            lambda c: c["mapping"][c["current_node"]]["message"]["content"].__setitem__(
                "parts", [{"a": 1}, 5]
            ),
            lambda c: c.__setitem__("conversation_id", {"x": 1}),
            lambda c: c["mapping"][c["current_node"]]["message"].__setitem__("create_time", "1e999"),
        ]
    ):
        conv = _good(f"bad-{n}")
        change(conv)
        shapes.append(conv)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([*shapes, _good("fine")]))
    items = list(open_source(path, "chatgpt").items())
    assert [i.content for i in items if isinstance(i, Record)][-1] == "fine: I water the plants on Sundays."
    assert all(isinstance(i, (Record, Problem)) for i in items)
    assert sum(isinstance(i, Problem) for i in items) >= 4
