"""Where an assistant's message holds a text written for the person to send, in the person's voice.

Asked for a letter, an email, a card or a message, an assistant writes it as the person would: its "I"
is the person ("I am writing to let you know that my husband and I will be leaving Taunton"), its
"you" whoever it goes to. Read as the assistant's own words, such a draft would give the assistant the
person's home, bank and car. A draft is found by its form, never by what it says:

- a quoted passage that speaks in the first person ("Hi, just to let you know I've changed banks …");
- a letter: from the line that opens it (a greeting alone on its line: "Dear Practice Manager,", "Hi
  all,"; or a "Subject:" line) to the line that signs it off ("Kind regards," and the name under it, or
  a name alone on its line). A greeting that nothing signs off is the assistant greeting the person; a
  letter opened by its subject line and never signed runs to the message's end.

Each draft is a span of the message's text (start, end). The words around it (the assistant's own "Here's
a short version:", "You can add your dates of birth underneath") are no part of it. What the draft says
stays the assistant's claim (its authority is its message's): only whose "I" it is changes.
"""

from __future__ import annotations

import re
from bisect import bisect_left

#: a passage in quotes, straight or curly, of a few words at least
_QUOTED = re.compile(r"[\"“]([^\"“”\n]{12,}?(?:\n[^\"“”\n]+?)*)[\"”]")
#: the first person, said by whoever wrote the words
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|my|mine|we|we're|we've|our|us)\b|\bI['’]", re.I)
#: a line that opens a letter: a greeting alone on its line ("Dear Practice Manager,", "Hi all,"), or the
#: subject line
_GREETING = re.compile(
    r"^[ \t]*(?:dear|hi|hello|hey|hiya|good (?:morning|afternoon|evening)|to whom it may concern)\b"
    r"[^\n.?]{0,50}?[,!]?[ \t]*$",
    re.I | re.M,
)
_SUBJECT = re.compile(r"^[ \t]*subject:", re.I | re.M)
#: a line that signs a letter off: a few words ending with a comma ("Kind regards,", "Thanks,", "Best,")
_SIGN_OFF = re.compile(r"^[ \t]*[A-Za-z][\w'’ ]{0,30},[ \t]*$", re.M)
#: a name alone on its line, signing a letter that has no sign-off words ("Marta", "[Name]")
_SIGNATURE = re.compile(r"^[ \t]*(?:\[[\w ]+\]|[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2})[ \t]*$", re.M)


def regions(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` (an assistant's message) that are drafts written in the person's voice, in
    order, none overlapping. Each pattern reads the text once, however many letters it holds."""
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(text) if _FIRST_PERSON.search(m.group(1))]
    letters: list[tuple[int, int]] = []
    ends = _Ends(text)
    openings = [(m, True) for m in _SUBJECT.finditer(text)] + [(m, False) for m in _GREETING.finditer(text)]
    for opening, subject_line in sorted(openings, key=lambda o: o[0].start()):
        if within(letters[-1:], opening.start()) or _in_sorted(quoted, opening.start()):
            continue  # a greeting inside a letter or a quoted draft already found
        end = ends.after(opening.end())
        if end is None and not subject_line:
            continue  # a greeting with nothing signing it off is the assistant greeting the person
        letters.append((opening.start(), len(text) if end is None else end))
    return _merged(quoted + letters)


def within(regions_: list[tuple[int, int]], start: int) -> bool:
    """Whether a sentence starting at ``start`` is in one of the drafts."""
    return any(a <= start < b for a, b in regions_)


class _Ends:
    """Where the letters of one text end: its sign-off lines (not greetings) and its names alone on a line,
    found once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.sign_offs = [m for m in _SIGN_OFF.finditer(text) if not _GREETING.match(m.group(0))]
        self.signatures = [m for m in _SIGNATURE.finditer(text) if m.group(0).strip()]

    def after(self, at: int) -> int | None:
        """Where a letter opened before ``at`` ends: past the name under its sign-off, or at a name alone on
        its line; None when nothing signs it off."""
        sign_off = _first_from(self.sign_offs, at)
        signature = _first_from(self.signatures, at)
        if sign_off is not None and (signature is None or sign_off.start() <= signature.start()):
            text = self.text
            name = _SIGNATURE.match(text, sign_off.end() + 1) if sign_off.end() < len(text) else None
            return name.end() if name is not None else sign_off.end()
        return signature.end() if signature is not None else None


def _in_sorted(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether ``at`` is in one of ``spans`` (sorted, none overlapping)."""
    i = bisect_left(spans, at, key=lambda span: span[1] - 1)
    return i < len(spans) and spans[i][0] <= at


def _first_from(matches: list[re.Match[str]], at: int) -> re.Match[str] | None:
    i = bisect_left(matches, at, key=lambda m: m.start())
    return matches[i] if i < len(matches) else None


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
