"""The one output-sanitising function: nothing in stored text can act on a terminal or a page."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from veramem_desktop.core.trust.display import JOINERS, visible, visible_line


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2K\r\x1b[1ANothing to review.", "␛[2K␍␛[1ANothing to review."),
        ("\x1b]0;pwned\x07title", "␛]0;pwned␇title"),
        ("bell\x07 nul\x00 del\x7f", "bell␇ nul␀ del␡"),
        ("csi\x9b31m nel-free", "csi\\x9b31m nel-free"),
        ("abc\u202eevil\u202c", "abc\\u202eevil\\u202c"),
        ("iso\u2066late\u2069", "iso\\u2066late\\u2069"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("lone \udfff surrogate", "lone \\udfff surrogate"),
        ("tab\there", "tab here"),
        ("vt\x0bff\x0c", "vt␋ff␌"),
    ],
)
def test_each_kind_of_control_is_shown_as_a_visible_stand_in(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_line_breaks_are_spaces_on_one_line_and_newlines_when_multiline() -> None:
    raw = "a\nb\r\nc\u2028d\u2029e\x85f"
    assert visible(raw) == "a b c d e f"
    assert visible(raw, multiline=True) == "a\nb\nc\nd\ne\nf"
    assert visible("over\rwrite", multiline=True) == "over␍write"  # a lone CR is never a line break


def test_joiners_stay_so_emoji_and_scripts_render() -> None:
    family = "👩\u200d👩\u200d👧"
    assert visible(family) == family
    assert visible("می\u200cخواهم") == "می\u200cخواهم"


def test_every_format_character_of_this_unicode_database_is_neutralised() -> None:
    missed = [
        f"U+{c:04X}"
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) in ("Cf", "Cc", "Cs")
        and chr(c) not in JOINERS + "\n\t"
        and visible(chr(c), multiline=True) == chr(c)
    ]
    assert not missed


@given(st.text(alphabet=st.characters(codec=None)))
def test_output_never_holds_a_character_a_terminal_would_act_on(text: str) -> None:
    out = visible(text, multiline=True)
    for ch in out:
        cat = unicodedata.category(ch)
        assert ch == "\n" or ch in JOINERS or cat not in ("Cc", "Cf", "Cs", "Zl", "Zp"), repr(ch)
    out.encode("utf-8")  # always printable: no lone surrogate survives


def test_plain_text_is_left_exactly_as_it_is() -> None:
    text = "Café at 9 — «naïve» [bold]x[/bold] <script>1</script> 東京"
    assert visible(text) == text


def test_a_listing_line_is_cut_with_an_ellipsis_after_it_is_made_visible() -> None:
    assert visible_line("ab\x1bcdef", 4) == "ab␛…"
    assert visible_line("short", 10) == "short"
