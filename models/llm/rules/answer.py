"""Rule-based extractive answers that reconcile what they cite.

Items sharing the question's key words are grouped by the subject recall found them to speak
about (core/recall/truth.py). For each subject, the answer states the current item of the
highest authority once, word for word (the user's own third-person memory turned to "you"),
with its date and what it replaced when history is known; it attributes claims of lower
authority to their source, names a recorded conflict instead of merging it, and never says an
episode and the memory derived from it both. When only a retracted item matched, what holds now is
what the message that retracted it says (the memory made from it, else the message itself): that is
stated and cited with the message, and the old value only as no longer holding. Only ids of the given items are ever cited; with
no item sharing a key word with the question, it abstains.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from veramem_desktop.core.llm import AnswerDraft, ContextItem
from veramem_desktop.models.llm.rules.text import content_stems, is_negated, split_sentences

MAX_SUBJECTS = 3
ABSTAIN_TEXT = "No stored memory answers this."
# Words that frame a question rather than say what it is about.
_QUESTION_WORDS = {"user", "what", "when", "where", "who", "which", "how", "why", "tell", "know", "remember"}
_AUTHORITY_RANK = {"authorized": 3, "attested": 2, "unendorsed": 1}
_LIVE = ("current", "in_conflict")
_STALE = ("superseded", "retracted", "archived")


def key_terms(question: str) -> set[str]:
    return {s for s in content_stems(question) if s not in _QUESTION_WORDS}


def answer(question: str, items: Sequence[ContextItem]) -> AnswerDraft:
    keys = key_terms(question)
    present = {item.id for item in items}
    scored: list[tuple[int, int, int, ContextItem, set[str]]] = []
    for position, item in enumerate(items):
        if item.kind == "episode" and present & set(item.derived):
            continue  # its memory is here and says it, with its state
        shared = keys & _stems(item)
        if shared:
            scored.append((len(shared), _AUTHORITY_RANK.get(item.authority, 0), -position, item, shared))
    if not scored:
        return AnswerDraft(text=ABSTAIN_TEXT, abstained=True, sufficient=False)
    groups: dict[str, list[tuple[int, int, int, ContextItem, set[str]]]] = {}
    for row in scored:
        groups.setdefault(row[3].group or row[3].id, []).append(row)
    # Subjects in order of their best item: most key words, then what the user said before others' claims.
    ranked = sorted(groups.values(), key=lambda rows: max(r[:3] for r in rows), reverse=True)
    best = max(r[0] for r in scored)
    floor = max(1, math.ceil(0.6 * best))
    sentences: list[str] = []
    cited: list[str] = []
    covered: set[str] = set()
    for rows in [g for g in ranked if max(r[0] for r in g) >= floor][:MAX_SUBJECTS]:
        said, ids = _subject(rows, keys, {i.id: i for i in items})
        sentences.append(said)
        cited += ids
        covered |= set().union(*(r[4] for r in rows if r[3].id in ids))
    return AnswerDraft(
        text=" ".join(sentences),
        cited_ids=tuple(dict.fromkeys(cited)),
        abstained=False,
        sufficient=len(covered) / len(keys) >= 0.5 if keys else False,
    )


def _stems(item: ContextItem) -> set[str]:
    """What an item speaks about: its words, and the attribute it states ("lives_in" for "User moved to
    Porto."), so a question asked in other words than the memory's still finds it."""
    about = re.sub(r"[_:]", " ", item.subject or "")
    return content_stems(f"{item.text} {about}")


def _subject(
    rows: list[tuple[int, int, int, ContextItem, set[str]]], keys: set[str], by_id: dict[str, ContextItem]
) -> tuple[str, list[str]]:
    """One subject said once: its current value, then its history, lower claims and conflicts."""
    members = [r[3] for r in sorted(rows, key=lambda r: r[:3], reverse=True)]
    live = [m for m in members if m.state in _LIVE] or _retiring(members, by_id)
    if not live:  # only history matched: say so rather than present it as current
        item = members[0]
        # cold storage keeps what a broader memory covers, or what was rarely used: nothing said it
        # stopped holding, so the answer does not say so either
        state = "kept in cold storage" if item.state == "archived" else "this no longer holds"
        return f"{_sentence(item, keys)} ({state})", [item.id]
    head = max(
        live,
        key=lambda m: (
            _AUTHORITY_RANK.get(m.authority, 0),
            m.state == "current",
            -(members + live).index(m),
        ),
    )
    retractions = {m.retracted_by for m in members}
    text = _said(head, keys) if head.id in retractions else _sentence(head, keys)
    ids = [head.id]
    # What the current value replaced: the version it superseded directly, else the latest history. What
    # waits in cold storage under it (a narrower statement it covers) was not replaced: it is not said.
    stale = sorted(
        (m for m in members if m.state in _STALE and m.state != "archived"),
        key=lambda m: (m.superseded_by == head.id, m.time or ""),
        reverse=True,
    )
    if stale and head.corrects and stale[0].superseded_by == head.id:
        # a mistake put right is no change of state: the old value never held
        when = f" on {head.time[:10]}" if head.time else ""
        text = f"{text.rstrip('.')} (corrected{when}: not {head.corrects})."
        ids.append(stale[0].id)
    elif stale:
        before = stale[0].value or _sentence(stale[0], keys).rstrip(".")
        since = f"since {head.time[:10]}; " if head.time and head.id not in retractions else ""
        gone = ", which no longer holds" if stale[0].state == "retracted" else ""
        text = f"{text.rstrip('.')} ({since}before that, {before}{gone})."
        # the statement that retired it is cited with it
        ids += [i for i in (stale[0].retracted_by,) if i in by_id and i not in ids]
        ids.append(stale[0].id)
    lower = [
        m
        for m in live
        if m is not head and _AUTHORITY_RANK.get(m.authority, 0) < _AUTHORITY_RANK.get(head.authority, 0)
    ]
    conflicts = [by_id[c] for c in head.conflicts_with if c in by_id and by_id[c] is not head]
    for other in dict.fromkeys(conflicts + lower):
        verb = "a recorded conflict:" if other in conflicts else "another source:"
        text += f" ({verb} {_attributed(other, keys)})"
        ids.append(other.id)
    return text, ids


def _retiring(members: list[ContextItem], by_id: dict[str, ContextItem]) -> list[ContextItem]:
    """What holds now for stale members: what stands for one (its new version, the memory made from the
    message that retracted it), else that message itself, best member first."""
    found: list[ContextItem] = []
    for m in members:
        if m.state not in _STALE:
            continue
        for other in (by_id.get(m.superseded_by or ""), by_id.get(m.retracted_by or "")):
            if other is not None and other.state in _LIVE and other not in found:
                found.append(other)
    return found


# Where a message's statements part: "…; …", "… - …", "…, and …", "…, but …".
_PARTS = re.compile(r"\s*;\s*|\s+[-–—]\s+|,\s*(?:and|but)\s+")


def _said(item: ContextItem, keys: set[str]) -> str:
    """A message that retracted something, as the user's own words: 'You said on 2024-05-01: "…"', the
    parts of it that say what holds now when others only say what stopped ("Ana is no longer my
    partner; I'm with Noor now." gives "I'm with Noor now.")."""
    if item.kind != "episode":
        return _sentence(item, keys)
    parts = [p.strip() for s in split_sentences(item.text) for p in _PARTS.split(s.text) if p.strip()]
    holding = [p for p in parts if not is_negated(p)]
    when = f" on {item.time[:10]}" if item.time else ""
    return f'You said{when}: "{" ".join(holding) if holding else item.text.strip()}"'


def _sentence(item: ContextItem, keys: set[str]) -> str:
    text = _best_sentence(item.text, keys)
    return _second_person(text) if item.kind != "episode" else text


def _attributed(item: ContextItem, keys: set[str]) -> str:
    """A lower-authority claim with who made it ("the assistant said: …", "tool calendar says: …")."""
    text = _best_sentence(item.text, keys)
    if text.lower().startswith("according to"):
        return text
    who = {"assistant": "the assistant", "user": "you"}.get(item.source or "", item.source or "a source")
    return f"{who} said: {text}"


_THIRD = [
    (re.compile(r"^User's\b"), "Your"),
    (re.compile(r"^User is\b"), "You are"),
    (re.compile(r"^User was\b"), "You were"),
    (re.compile(r"^User has\b"), "You have"),
    (re.compile(r"^User does\b"), "You do"),
    (re.compile(r"^User (\w+ed|\w*[^s\W])\b"), r"You \1"),  # "User moved", "User got", "User can"
    (re.compile(r"^User (\w+?)ies\b"), r"You \1y"),
    (re.compile(r"^User (\w+?(?:ch|sh|ss|x|o))es\b"), r"You \1"),
    (re.compile(r"^User (\w+?)s\b"), r"You \1"),
]


def _second_person(text: str) -> str:
    """The user's memory as said to them: "User lives in Munich." -> "You live in Munich."."""
    for pattern, replacement in _THIRD:
        if pattern.match(text):
            said = pattern.sub(replacement, text, count=1)
            # and further on: "You switched User's editor" -> "your editor", "and User uses" -> "and you use"
            for inner, lower in _INNER:
                said = inner.sub(lower, said)
            return said
    return text


_INNER = [
    (re.compile(r"(?<= )" + pattern.pattern[1:]), replacement.replace("You", "you").replace("Your", "your"))
    for pattern, replacement in _THIRD
]


def _best_sentence(text: str, keys: set[str]) -> str:
    """The sentence of ``text`` sharing most key words (the whole text when it is one sentence)."""
    spans = split_sentences(text)
    if len(spans) <= 1:
        return text.strip()
    return max(spans, key=lambda s: len(keys & content_stems(s.text))).text
