"""Rule-based abstraction of an experience into the slot template.

User values (URLs, e-mail addresses, phone numbers, dates, times, numbers and amounts,
and names of people, places and organisations written with capitals) become
``{slot_1}``, ``{slot_2}``…, the same value always the same slot, so what is shared
keeps the method and none of the person's particulars. A slot always replaces a whole
value: a question or function word ("What", "The") is never one, a name keeps all its
words, and a date or number is never cut ("May 2024", not "May 20" and "24"). Consolidation
checks the result again (core/lifecycle/abstraction.py) before storing it.
"""

from __future__ import annotations

import re

from veramem_desktop.core.lifecycle.abstraction import FUNCTION_WORDS
from veramem_desktop.models.llm.experience import render_experience
from veramem_desktop.models.llm.rules.text import split_sentences

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?"
)
# In priority order: an earlier pattern's match is never cut by a later one.
_VALUE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("URL", re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:!?)]")),
    ("e-mail address", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    ("phone number", re.compile(r"(?<!\w)\+?\d[\d ()./-]{6,}\d\b")),
    (
        "date",
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
            r"|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"
            r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+\d{4}\b)?"
            r"|\b" + _MONTH + r"\s+\d{4}\b"
            r"|\b" + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?\b(?:,?\s+\d{4}\b)?"
        ),
    ),
    ("time", re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)(?!\w)|\b\d{1,2}:\d{2}\b", re.IGNORECASE)),
    (
        "amount or number",
        re.compile(
            r"[$€£¥]\s?\d+(?:[.,]\d+)*(?:\s?[kKmM]\b)?"
            r"|\b\d+(?:[.,]\d+)*(?:\s?(?:%|k\b|USD|EUR|GBP|dollars|euros|pounds))?"
        ),
    ),
]
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:(?:of|de|la|del|van|von|der|the)\s+)?[A-Z][\w'’-]*)*")
_NOT_VALUES_TEXT = """
    I User Assistant Monday Tuesday Wednesday Thursday Friday Saturday Sunday OK AI API
"""
_NOT_VALUES = frozenset(_NOT_VALUES_TEXT.split())
_CAUTION = re.compile(
    r"\b(?:avoid|careful|caution|don't|do not|never|make sure|ensure|warning|watch out|note that|mistake|"
    r"failed|fails|error|problem|beware|double-check|check that)\b",
    re.IGNORECASE,
)
DEFAULT_CAUTION = "Confirm every input with the person before acting; the values differ from case to case."


def _value_spans(text: str) -> list[tuple[int, int, str]]:
    taken: list[tuple[int, int, str]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e, _ in taken)

    for label, pattern in _VALUE_PATTERNS:
        for m in pattern.finditer(text):
            if free(m.start(), m.end()):
                taken.append((m.start(), m.end(), label))
    sentence_starts = {span.start for span in split_sentences(text)}
    mid_sentence_words = {m.group(0) for m in re.finditer(r"(?<=[^\s.!?]\s)[A-Z][\w'’-]*", text)}
    for m in _CAPITALISED.finditer(text):
        start, value = m.start(), m.group(0)
        first, _, rest = value.partition(" ")
        if start in sentence_starts and first not in mid_sentence_words:
            if not rest:
                continue  # a capital only because the sentence starts here
            start += len(first) + 1  # "Booked Hotel Adlon": the name starts at the second word
            value = rest.lstrip()
        # a question or function word in front ("What", "The") is no part of a value
        while value and value.split(" ", 1)[0].casefold() in FUNCTION_WORDS:
            first, _, value = value.partition(" ")
            start += len(first) + 1
            value = value.lstrip()
        if not value or value in _NOT_VALUES or not free(start, m.end()):
            continue
        taken.append((start, m.end(), "reference" if any(c.isdigit() for c in value) else "name"))
    return sorted(taken)


def slot_values(text: str) -> tuple[str, list[str]]:
    """``text`` with values replaced by ``{slot_n}``, and one input line per slot."""
    slots: dict[str, str] = {}
    inputs: list[str] = []
    out, last = [], 0
    for start, end, label in _value_spans(text):
        value = text[start:end]
        if value not in slots:
            slots[value] = f"{{slot_{len(slots) + 1}}}"
            inputs.append(f"{slots[value]} ({label})")
        out.append(text[last:start])
        out.append(slots[value])
        last = end
    out.append(text[last:])
    return "".join(out), inputs


def abstract_experience(text: str) -> str:
    slotted, inputs = slot_values(text)
    sentences = [s.text for s in split_sentences(slotted)] or [slotted.strip() or "(empty)"]
    situation = sentences[0]
    cautions = [s for s in sentences[1:] if _CAUTION.search(s)]
    steps = [s for s in sentences[1:] if s not in cautions] or [situation]
    name_words = re.sub(r"[.!?…]+$", "", situation).split()
    name = " ".join(name_words[:8]) + (" …" if len(name_words) > 8 else "")
    return render_experience(
        name=name[:1].upper() + name[1:],
        applies_when=f"a task like this one: {situation}",
        inputs=inputs,
        procedure=steps,
        caution=" ".join(cautions) or DEFAULT_CAUTION,
    )
