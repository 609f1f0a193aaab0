"""Stored text made safe to show a person: no character in it can act on a terminal or a page.

Memories and episodes hold whatever people, tools and documents wrote, including
terminal escapes (``ESC [2K`` erases a line, ``ESC ]0;…BEL`` sets a window title),
carriage returns that print over a line, C1 controls, bidi overrides that reorder what
is read, and lone surrogates that cannot even be encoded. :func:`visible` is the one
function every human surface (CLI text, the terminal app, the web page) passes stored
text through before showing it. Nothing is dropped: each such character is shown as a
visible stand-in, so a person sees that it is there.

- C0 controls and DEL become their Control Pictures symbols (U+2400 block): ``␛`` for
  ESC, ``␍`` for a lone CR, ``␇`` for BEL.
- C1 controls, format characters (category Cf: bidi embeddings, overrides and isolates,
  zero-width spaces, invisible tag characters) and lone surrogates become a Python-style
  escape such as ``\\x9b`` or ``\\u202e``. ZWJ and ZWNJ stay: emoji sequences and
  several scripts need them, and they act on nothing.
- TAB reads as a space. A line break (LF, CRLF, NEL, U+2028, U+2029) is kept as a
  newline when ``multiline`` is set and read as a space otherwise.

JSON output is data, not display: it is never passed through here. This module is pure
(no IO) so the engine, the CLI, the terminal app and the page code can all use it.
"""

from __future__ import annotations

import re

#: Format characters (general category Cf), as ranges, up to Unicode 15.1. A test checks this
#: list against the running Python's Unicode database, so a newer database cannot slip past it.
FORMAT_RANGES = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
#: Kept by :func:`visible`: zero-width non-joiner and joiner shape text and emoji, and act on nothing.
JOINERS = "\u200c\u200d"
#: Every character that ``str.splitlines`` treats as a line boundary.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"

_UNSAFE = re.compile(f"\r\n|[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{FORMAT_RANGES}]")
_NEWLINES = {"\n", "\r\n", "\x85", "\u2028", "\u2029"}


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control, format character and lone surrogate shown as a visible stand-in."""

    def swap(m: re.Match[str]) -> str:
        ch = m.group(0)
        if ch in _NEWLINES:
            return "\n" if multiline else " "
        if ch == "\t":
            return " "
        if ch in JOINERS:
            return ch
        return _escape(ch)

    return _UNSAFE.sub(swap, text)


def visible_line(text: str, width: int | None = None) -> str:
    """:func:`visible` on one line, cut to ``width`` characters with an ellipsis when longer."""
    line = visible(text)
    if width is not None and len(line) > width:
        return line[: max(width - 1, 0)] + "…"
    return line


def is_visible(text: str, *, multiline: bool = False) -> bool:
    """True when :func:`visible` would leave ``text`` unchanged."""
    return visible(text, multiline=multiline) == text


def js_rules() -> str:
    """The rules of :func:`visible` as JSON for the web page, whose script applies the same mapping:
    one source for which characters are neutralised, read by every surface."""
    import json

    def js_class(chars: str) -> str:
        return "".join(c if c == "-" else f"\\u{{{ord(c):x}}}" for c in chars)

    unsafe = js_class(f"\x00-\x1f\x7f-\x9f\u2028\u2029{FORMAT_RANGES}")
    return json.dumps(
        {
            # Lone surrogates: with the "u" flag a JavaScript class matches only unpaired halves.
            "pattern": f"\\r\\n|[{unsafe}\\ud800-\\udfff]",
            "newlines": sorted(_NEWLINES),
            "joiners": JOINERS,
        },
        ensure_ascii=True,
    )
