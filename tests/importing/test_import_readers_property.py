"""Property tests of the pure readers: what is written in a documented shape reads back the same."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from import_support import chatgpt_conversation
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.transfer.chatgpt import chatgpt_items
from veramem_desktop.core.transfer.chats import open_source
from veramem_desktop.core.transfer.records import Record

texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=80).filter(
    lambda t: t.strip()
)
roles = st.sampled_from(["user", "assistant", "system", "tool"])
moments = st.none() | st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2040, 1, 1), timezones=st.just(UTC)
)
messages = st.lists(st.tuples(roles, texts, moments), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(messages, st.booleans())
def test_message_lists_read_back_in_order_with_distinct_stable_keys(
    tmp_path_factory: object, msgs: list, as_lines: bool
) -> None:
    folder = Path(tmp_path_factory.mktemp("m"))  # type: ignore[attr-defined]
    objs = [{"role": r, "content": c, **({"time": iso(t)} if t else {})} for r, c, t in msgs]
    path = folder / ("chat.jsonl" if as_lines else "chat.json")
    path.write_text(
        "\n".join(json.dumps(o) for o in objs) if as_lines else json.dumps(objs), encoding="utf-8"
    )
    first = [i for i in open_source(path).items() if isinstance(i, Record)]
    assert [(r.role, r.content, r.time) for r in first] == [
        (o["role"], o["content"], o.get("time")) for o in objs
    ]
    assert len({r.key for r in first}) == len(first)  # identical messages stay distinct
    assert [r.key for r in open_source(path).items() if isinstance(r, Record)] == [r.key for r in first]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["user", "assistant"]), texts), min_size=1, max_size=10),
    st.integers(min_value=0, max_value=9),
)
def test_a_chatgpt_tree_is_read_along_the_current_branch_only(turns: list, fork_at: int) -> None:
    conv = chatgpt_conversation("c", "t", turns)
    fork_at = min(fork_at, len(turns) - 1)
    # an abandoned branch (an edit) off the turn before fork_at, with its own continuation
    parent = conv["mapping"][f"c-n{fork_at}"]["parent"]
    for k in range(2):
        node = f"alt-{k}"
        conv["mapping"][node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {
                "id": node,
                "author": {"role": "user"},
                "create_time": 1.0,
                "content": {"content_type": "text", "parts": [f"abandoned {k}"]},
            },
        }
        conv["mapping"][parent]["children"].append(node)
        parent = node
    read = [i for i in chatgpt_items(conv, 0) if isinstance(i, Record)]
    assert [(r.role, r.content) for r in read] == [(role, text.strip()) for role, text in turns]
    conv["current_node"] = "alt-1"  # the other branch, when it is the current one
    other = [i.content for i in chatgpt_items(conv, 0) if isinstance(i, Record)]
    assert other == [t.strip() for _, t in turns[:fork_at]] + ["abandoned 0", "abandoned 1"]
