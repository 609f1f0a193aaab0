"""Pure helpers that turn facade results into text for the screens (no IO, no Textual).

Stored text reaches the screen only through :func:`plain`, :func:`one_line` or
:func:`highlight_spans`: each passes it through ``core.display.visible`` (control and format
characters shown as visible stand-ins) and hands Textual a Rich ``Text``, which is never read
as markup, so ``[bold]`` in a memory shows as ``[bold]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from veramem_desktop.core.trust.display import visible, visible_line

#: the style of a quote inside its source episode; reverse video reads well in both themes
QUOTE_STYLE = "bold reverse"


def short_time(value: str | None) -> str:
    """``2024-03-05T14:02:11.000000Z`` -> ``2024-03-05 14:02`` ('' for nothing)."""
    if not value:
        return ""
    text = value.replace("T", " ")
    return text[:16]


def short_id(value: str | None, keep: int = 8) -> str:
    """An id shortened for a table: its prefix and the last ``keep`` characters."""
    if not value:
        return ""
    prefix, sep, rest = value.partition("_")
    if not sep or len(rest) <= keep:
        return value
    return f"{prefix}_…{rest[-keep:]}"


def one_line(text: str | None, width: int = 80) -> str:
    """Collapse whitespace, show controls visibly, and cut to ``width`` characters with an ellipsis."""
    return visible_line(" ".join((text or "").split()), width)


def plain(text: str | None, *, multiline: bool = True, style: str = "") -> Text:
    """Stored text as a Rich ``Text``: controls shown visibly, brackets shown as written (never markup)."""
    return Text(visible(text or "", multiline=multiline), style=style)


def cell(text: str | None, width: int = 80) -> Text:
    """A table cell holding stored text: one line, visible, cut to ``width``, never markup."""
    return Text(one_line(text, width))


def highlight_spans(content: str, spans: Iterable[tuple[int, int]], style: str = QUOTE_STYLE) -> Text:
    """The episode text with each ``(start, end)`` span styled; spans out of range are clipped.

    Spans index the stored text; each piece between span edges is made visible on its own, so a
    stand-in longer than its character (``\\u202e``) never shifts the highlight."""
    size = len(content)
    cuts = {0, size}
    marked: list[tuple[int, int]] = []
    for start, end in spans:
        lo, hi = max(0, min(start, size)), max(0, min(end, size))
        if hi > lo:
            cuts |= {lo, hi}
            marked.append((lo, hi))
    edges = sorted(cuts)
    text = Text()
    for lo, hi in zip(edges, edges[1:], strict=False):
        inside = any(a <= lo and hi <= b for a, b in marked)
        text.append(visible(content[lo:hi], multiline=True), style=style if inside else "")
    return text


def find_quote(
    content: str, quote: str, start: int | None = None, end: int | None = None
) -> tuple[int, int] | None:
    """Where ``quote`` sits in ``content``: the stored span when it matches, else the first exact find."""
    if start is not None and end is not None and 0 <= start < end <= len(content):
        return start, end
    at = content.find(quote) if quote else -1
    if at < 0:
        at = content.casefold().find(quote.casefold()) if quote else -1
    return (at, at + len(quote)) if at >= 0 else None


def outcome_line(uses: int, successes: float, failures: float, utility: float | None) -> str:
    """Outcome stats of a memory in one line."""
    parts = [f"used {uses}×", f"helped {successes:g}", f"hurt {failures:g}"]
    if utility is not None:
        parts.append(f"utility {utility:.2f}")
    return " · ".join(parts)


def progress_label(checked: int, total: int) -> str:
    return f"{checked:,} of {total:,} entries checked"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def join_nonempty(parts: Sequence[str | None], sep: str = " · ") -> str:
    return sep.join(p for p in parts if p)
