"""Checking an abstracted experience before it is stored: a slot replaces a whole value.

An abstraction turns a person's experience into a procedure where names, numbers, dates and
the like are ``{slot_1}``, ``{slot_2}``…; whoever wrote it (the rule-based backend or a model),
the text is checked here, and a garbled one is refused with the reasons:

- every placeholder is well formed (``{slot_N}``, nothing else between the braces);
- no placeholder is glued to letters or digits (``{slot_4}24`` cut a number in two);
- where the words around a placeholder are found in the source, what it replaced is a whole
  value: not a question or function word ("{slot_1} do I work as" replaced "What"), not part
  of a longer name ("{slot_1} General" for "Lisbon General"), not a piece of a number.

Where the words around a placeholder are not in the source (a model reworded it), only the
first two checks apply. Pure functions; no model, no SQL.
"""

from __future__ import annotations

import re

SLOT = re.compile(r"\{slot_(\d+)\}")
_BRACED = re.compile(r"\{+[^{}\n]{0,40}\}+")
_GLUED = re.compile(r"[^\W_]\{slot_\d+\}|\{slot_\d+\}[^\W_]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")

#: words that are never a person's value: question words, pronouns, articles, auxiliaries,
#: prepositions and conjunctions (a placeholder standing for one of these is garbled)
_FUNCTION_WORDS_TEXT = """
what where when who whom whose which why how whatever whenever wherever
i me my mine you your yours he him his she her hers it its we us our ours they them their theirs
this that these those there here someone somebody something anyone anything everyone everything
a an the some any each every no not
do does did done is are was were be been being am have has had can could will would shall should
may might must
and or but nor so yet if then than because as of to in on at by for from with without about into onto
over under after before since until up down out off again also just only very too
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())


def problems(text: str, source: str = "") -> list[str]:
    """Why ``text`` (an abstraction of ``source``) is garbled; empty when it is sound."""
    found: list[str] = []
    for m in _BRACED.finditer(text):
        if not SLOT.fullmatch(m.group(0)):
            found.append(f"a malformed placeholder {m.group(0)[:20]!r}")
    for m in _GLUED.finditer(text):
        found.append(f"a placeholder cuts a word or number ({m.group(0)!r})")
    if source:
        found += _replaced_parts(text, source)
    return list(dict.fromkeys(found))


def _replaced_parts(text: str, source: str) -> list[str]:
    """Align the words around each placeholder with the source and judge what it replaced."""
    out: list[str] = []
    for line in text.splitlines():
        parts = SLOT.split(line)  # literal, number, literal, number, …
        literals = parts[0::2]
        for i in range(len(literals) - 1):
            before = _WORD.findall(literals[i])[-2:]
            after = _WORD.findall(literals[i + 1])[:2]
            replaced = _replaced(source, before, after, literals[i + 1])
            if replaced is None:
                continue
            value, prev_word, next_word = replaced
            reason = _judge(value, prev_word, next_word)
            if reason:
                out.append(f"{{slot_{parts[2 * i + 1]}}} {reason}")
    return out


def _replaced(source: str, before: list[str], after: list[str], tail: str) -> tuple[str, str, str] | None:
    """What the source has between the words ``before`` and ``after`` (with the source words just
    outside it), or None when the placeholder's surroundings are not found there."""
    if not before and not after:
        return None
    left = r"\W+".join(re.escape(w) for w in before)
    if after:
        right = r"\W+".join(re.escape(w) for w in after)
    else:
        punct = tail.lstrip()[:1]
        if not punct or punct.isalnum():
            return None
        right = re.escape(punct)
    pattern = (
        (rf"(?<![^\W_]){left}\W+" if left else "")
        + r"(?P<v>[^\n{}]{1,80}?)"
        + (rf"\W+{right}" if after else rf"\s*{right}")
    )
    m = re.search(pattern, source, re.IGNORECASE)
    if m is None:
        return None
    # the source words right beside the value, when only spaces part them (a name can go on there)
    prev = re.search(r"([^\W_]+) +$", source[: m.start("v")])
    nxt = re.match(r" +([^\W_]+)", source[m.end("v") :])
    return m.group("v"), (prev.group(1) if prev else ""), (nxt.group(1) if nxt else "")


def _judge(value: str, prev_word: str, next_word: str) -> str:
    words = _WORD.findall(value)
    if not words:
        return "replaced no word"
    if all(w.casefold() in FUNCTION_WORDS for w in words):
        return f"replaced {value.strip()!r}, which is no name, number or date"
    if _name_word(next_word) and _name_word(words[-1]):
        return f"replaced part of the name {value.strip()} {next_word}"
    if _name_word(prev_word) and _name_word(words[0]):
        return f"replaced part of the name {prev_word} {value.strip()}"
    return ""


def _name_word(word: str) -> bool:
    return bool(word) and word[:1].isupper() and word.casefold() not in FUNCTION_WORDS and word != "User"
