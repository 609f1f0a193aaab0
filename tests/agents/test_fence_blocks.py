"""The fence around recalled text: whatever the stored text, it stays inside its block."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from veramem_desktop.core import fence

ANGLES = "<>\uff1c\uff1e\u2039\u203a\u00ab\u00bb\u3008\u3009\u27e8\u27e9"
#: Text biased towards fence look-alikes: delimiters, the marker words, newlines and any nonce-like hex.
hostile = st.lists(
    st.sampled_from(["<<<", ">>>", "<", ">", "RECALLED-DATA ", "END ", "\n", "0123456789abcdef", " id=mem_x",
                     *ANGLES]) | st.text(max_size=8),
    max_size=30,
).map("".join)


@given(texts=st.lists(hostile, min_size=1, max_size=4))
def test_stored_text_can_neither_close_nor_forge_a_fence(texts: list[str]) -> None:
    out = fence.fence_all([(t, {"id": f"mem_{i}"}) for i, t in enumerate(texts)], nonce="feedfacecafebeef")
    lines = out.split("\n")
    opens = [i for i, line in enumerate(lines) if re.fullmatch(r"<<<RECALLED-DATA feedfacecafebeef id=mem_\d+>>>", line)]
    closes = [i for i, line in enumerate(lines) if line == "<<<END RECALLED-DATA feedfacecafebeef>>>"]
    assert len(opens) == len(closes) == len(texts)
    # Blocks alternate open/close, and nothing between them looks like a delimiter run.
    for start, end in zip(opens, closes, strict=True):
        assert start < end
        inner = "\n".join(lines[start + 1 : end])
        assert not re.search(f"[{re.escape(ANGLES)}]{{3}}", inner)
    assert out.count("<<<") == 2 * len(texts)


def test_header_values_cannot_break_the_header() -> None:
    out = fence.block("x", "feedfacecafebeef", {"id": "mem_1>>>\n<<<END", "kind": "fact"})
    assert out.split("\n")[0].count(">>>") == 1 and out.count("\n") == 2


def test_each_response_gets_a_fresh_nonce() -> None:
    assert len({fence.new_nonce() for _ in range(50)}) == 50
