"""Names written in lower case, spelt as the person's history spells them (pure functions, no IO).

People type fast to an assistant: "amara landed a job at skyscanner", "gave up on bramble". The parse
that keys a statement (models/llm/rules) and recall's reading of it (core/recall/statements.py) find
names by their capital letter, so a name typed in lower case is read as a common word and the change it
states is lost. The history itself says which words are names: the assistant's replies, documents and
the person's own careful messages write "Amara", "Skyscanner", "NHS". A :class:`Casing` counts, for each
word, how often text that uses capitals writes it with one in the middle of a sentence, and how often
without; a word only ever written with a capital there is a name, and :meth:`Casing.case` spells its
lower-case uses that way. A sentence's first word counts only when it is written all in capitals and
English has no such word ("KPMG clearly knew …"): no writer capitalises a whole word for opening a
sentence. Nothing is guessed from a word list: a word the history never writes with a
capital stays as typed, and one it also writes in lower case ("may", "march" the verb) does too. A word
English has anyway ("bank", "cube", "boots") is cased only inside the whole name the history spells
("corvel bank" is "Corvel Bank"), never alone. Only the case of letters changes, so a quote taken from the cased text still stands in the message
(core/trust/quotes.py matches case-insensitively and keeps the message's own words as evidence).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from veramem_desktop.core.text.lexicon import lexicon
from veramem_desktop.core.text.terms import STOPWORDS

_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’-](?=[^\W\d_]))*")
#: where a sentence (or a line, or a list item) begins: its first word is capitalised for that reason
_SENTENCE = re.compile(r"(?<=[.!?:;…])\s+|\n+|(?<=\s)[-*•]\s+")
#: the most words a name is made of ("Kirkgate Compounding Pharmacy Ltd"); a longer capitalised run is a title
_LONGEST_NAME = 4
#: a possessive or contraction ending the case map keys without ("Amara's" is Amara)
_ENDING = re.compile(r"['’](?:s|d|ll|re|ve|m)$", re.I)


def _key(word: str) -> str:
    return _ENDING.sub("", word).lower()


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


@lru_cache(maxsize=16384)
def _common(key: str) -> bool:
    """Whether ``key`` is an English word the lexicon knows ("bank", "cube", "boots"): a name made of such
    words is cased only whole, as the history spells it ("Corvel Bank"), never word by word."""
    return bool(lexicon().getAllLemmas(key))


def _uses_capitals(sentence: list[str]) -> bool:
    """Whether a sentence is written with capitals as prose uses them: some word past its first starts
    with one (a word shouted in capitals does not count: "NOT helping"), and it is no heading (a title or
    a shouted line capitalises every longer word)."""
    inner = [w for w in sentence[1:] if w != "I"]
    if not any(_capitalised(w) and not w.isupper() for w in inner) or not any(map(str.islower, inner)):
        return False
    long = [w for w in inner if len(w) > 3]
    return sum(map(_capitalised, long)) < 2 or not all(map(_capitalised, long))


def _acronym(word: str) -> bool:
    """Whether ``word`` is written all in capitals, two to five letters, and is no English word ("KPMG",
    "EE", not "NOT" nor "A")."""
    return 2 <= len(word) <= 5 and word.isupper() and not _common(word.lower())


class Casing:
    """How a history writes each word in the middle of its sentences: with a capital, or without."""

    def __init__(self) -> None:
        self._capital: Counter[str] = Counter()
        self._lower: Counter[str] = Counter()
        self._spelling: dict[str, Counter[str]] = {}
        #: runs of capitalised words said together mid-sentence ("corvel bank" -> "Corvel Bank")
        self._runs: dict[tuple[str, ...], Counter[tuple[str, ...]]] = {}
        self._firsts: set[str] = set()  # the first words of those runs
        self._longest = 0

    def add(self, text: str) -> None:
        """Count the words of ``text``'s sentences that use capitals (an all lower-case sentence says
        nothing of case: its writer did not use capitals at all), and a name in capitals opening any."""
        for part in _SENTENCE.split(text):
            words = _WORD.findall(part)
            if words and _acronym(words[0]):
                # a sentence may open on a name in capitals English does not have ("KPMG clearly knew …"):
                # no writer capitalises a whole word only because it opens a sentence
                self._count_capital(words[0])
            if len(words) < 2 or not _uses_capitals(words):
                continue
            # a name may open the sentence: its first word counts only as part of it ("Brightwater
            # Analytics is hiring"), never alone (any sentence opens with a capital)
            first, second = words[0], words[1]
            opens = _capitalised(first) and _key(first) not in STOPWORDS and _capitalised(second)
            run: list[str] = [first] if opens else []
            for word in [*words[1:], ""]:
                key = _key(word)
                if word and _capitalised(word) and key not in ("i", ""):
                    run.append(word)
                    if key not in STOPWORDS and len(key) > 1:
                        self._count_capital(word)
                    continue
                if 1 < len(run) <= _LONGEST_NAME:
                    spelt = tuple(_ENDING.sub("", w) for w in run)
                    self._runs.setdefault(tuple(w.lower() for w in spelt), Counter())[spelt] += 1
                    self._firsts.add(spelt[0].lower())
                    self._longest = max(self._longest, len(spelt))
                run = []
                if word and key not in STOPWORDS and len(key) > 1:
                    self._lower[key] += 1

    def _count_capital(self, word: str) -> None:
        """Count ``word`` written with a capital, and the name a hyphen joins it to another word with
        ("a Deloitte-green cake" writes Deloitte)."""
        spelt = _ENDING.sub("", word)
        for part in {spelt, spelt.split("-")[0]} if "-" in spelt else {spelt}:
            key = part.lower()
            if len(key) > 1 and key not in STOPWORDS:
                self._capital[key] += 1
                self._spelling.setdefault(key, Counter())[part] += 1

    def extend(self, texts: Iterable[str]) -> None:
        for text in texts:
            self.add(text)

    def name(self, word: str) -> str | None:
        """How the history spells ``word`` when it is a name there (only ever capitalised mid-sentence),
        else None."""
        key = _key(word)
        if not self._capital[key] or self._lower[key] or _common(key):
            return None
        return self._spelling[key].most_common(1)[0][0]

    def case(self, text: str) -> str:
        """``text`` with each word written all in lower case that the history spells as a name spelt
        that way ("amara's" is "Amara's"); every other character as it was."""

        def spelt(m: re.Match[str]) -> str:
            word = m.group()
            if not word.islower():
                return word
            name = self.name(word)
            if name is None or name.lower() != word[: len(name)].lower():
                return word
            return name + word[len(name) :]

        return self._case_runs(_WORD.sub(spelt, text))

    def _case_runs(self, text: str) -> str:
        """``text`` with each run of words the history spells as one name ("corvel bank") spelt so."""
        if not self._runs:
            return text
        words = list(_WORD.finditer(text))
        out, last, i = [], 0, 0
        longest, firsts = self._longest, self._firsts
        while i < len(words):
            if _key(words[i].group()) not in firsts:
                i += 1
                continue
            for n in range(min(longest, len(words) - i), 1, -1):
                span = words[i : i + n]
                key = tuple(_key(m.group()) for m in span)
                gaps = (text[a.end() : b.start()] for a, b in zip(span, span[1:], strict=False))
                if key in self._runs and all(g.isspace() for g in gaps) and self._uncased(span):
                    spelt = self._runs[key].most_common(1)[0][0]
                    for m, name in zip(span, spelt, strict=True):
                        out.append(text[last : m.start()] + name + m.group()[len(name) :])
                        last = m.end()
                    i += n
                    break
            else:
                i += 1
        return "".join(out) + text[last:]

    def _uncased(self, span: list[re.Match[str]]) -> bool:
        """Whether each word of ``span`` is typed in lower case, or spelt as the history spells names."""
        return all(
            m.group().islower() or self.name(m.group()) == m.group()[: len(self.name(m.group()) or "")]
            for m in span
        )
