"""Reading a correction: a statement that says an earlier one got a value wrong.

"Actually I moved to Porto, not Lisbon." does not add a second place to live: it says the
stored value "Lisbon" was wrong. :func:`read` finds the forms a correction takes in the
words a memory quotes (the speaker's own words, so the rule holds whichever model extracted
the candidate) and returns the wrong value and, when the form isolates it, the right one:

- a statement with a "not Y" tail: "I moved to Porto, not Lisbon", "Caroline moved to Boston,
  not Denver", "I moved not to Lisbon but to Porto";
- a bare value, with or without the wrong one: "Not Lisbon — Porto", "Not Lisbon but Porto",
  "It was Maria, not Anna", "Correction: Porto, not Lisbon", "I meant Porto";
- a retraction followed by the new statement: "I don't live in Lisbon anymore, I live in Porto".

What to do with it (which stored memory holds the wrong value, and the new version's words)
is core/write/correction_targets.py's. A statement is re-worded without its "not Y" part
(:func:`restated`); a bare value takes the wrong one's place in the corrected memory's words
(:func:`substituted`). Pure functions over text: no SQL, no model.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Literal

Form = Literal["statement", "bare"]
#: which of the forms below was read: "meant", "lead_not", "not_but", "no_longer", "tail_not"
Shape = str

#: openings that carry no content: "Actually, ", "Oh sorry — ", "Correction: "
_LEAD = re.compile(
    r"^(?:(?:oh|ah|um|uh|er|no|nope|sorry|wait|well|actually|oops|hmm|correction|to be clear|to clarify|"
    r"just to clarify|let me correct (?:myself|that)|i stand corrected|my bad|my mistake|rather)"
    r"\b[\s,:;!.\u2014\u2013-]*)+",
    re.IGNORECASE,
)
#: openings that say the sentence corrects something ("oh", "well" and "rather" do not)
_SIGNAL = re.compile(
    r"\b(?:no|nope|sorry|wait|actually|oops|correction|to be clear|to clarify|correct|corrected|my bad|"
    r"my mistake)\b",
    re.IGNORECASE,
)
#: shapes that are corrections by their form alone
_SIGNALLED_SHAPES = frozenset({"meant", "lead_not", "no_longer"})
#: a correction is a short sentence: longer ones are not read (and no pattern runs over long text)
MAX_SENTENCE_CHARS = 300
#: "not to mention", "not only", "not sure" …: "not" that corrects nothing
_IDIOM = re.compile(
    r"^(?:to mention|only|just|merely|simply|even|sure|that|least|bad|yet|necessarily|quite|exactly|"
    r"really|always|because|for long|at all|much|so much|a lot|anymore|any more|now|today|again)\b",
    re.IGNORECASE,
)
#: words that say nothing by themselves: a wrong value made only of these is no value
_FUNCTION_WORDS_TEXT = """
    a an the my our your his her their its this that these those to in at on for from with by of into
    onto about as and or but i we you he she they it me us him them is was are were be been am do does did
    have has had all any some at all really quite exactly very much more most so too also just only even
    now then today tonight tomorrow yesterday yet ever always never again anymore here there one once
    sure certain likely everything anything nothing everyone anyone someone
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
_SUBJECT_START = re.compile(
    r"^(?:I|I'm|I've|I'd|I'll|we|we're|we've|you|you're|he|he's|she|she's|they|they're|it's|there)\b",
    re.IGNORECASE,
)
_DETERMINER_START = re.compile(r"^(?:the|a|an|my|our|his|her|their|your|this|that)\b", re.IGNORECASE)
_IT_WAS = r"(?:it|that|this|he|she|they)\s*(?:was|is|were|are|'s)\s+(?:actually\s+|really\s+)?"
_DASH = r"(?:\s*[,;:\u2014\u2013]\s*|\s+-+\s+)"
_MEANT = re.compile(
    r"^(?:I|we)\s+(?:meant|mean|meant to say|wanted to say)(?:\s+that)?\s*[:,]?\s+(?P<right>.+?)"
    r"(?:,?\s+(?:and\s+)?not\s+(?P<wrong>[^,;]+))?$",
    re.IGNORECASE,
)
_LEAD_NOT = re.compile(
    r"^not\s+(?P<wrong>[^,;:\u2014\u2013]+?)(?:" + _DASH + r"(?:but\s+)?|\s+but\s+)(?:" + _IT_WAS + r")?"
    r"(?P<right>.+)$",
    re.IGNORECASE,
)
_NOT_BUT = re.compile(
    r"^(?P<head>.*?)\bnot\s+(?P<wrong>[^,;]+?),?\s+but\s+(?:rather\s+|instead\s+)?(?P<right>[^,;]+)$",
    re.IGNORECASE,
)
_NO_LONGER = re.compile(
    r"^(?P<negated>.*?(?:\bno longer|\bnot|n't|\bnever)\s+(?P<wrong>[^,;:\u2014\u2013]+?)(?:\s+any\s?more)?)"
    + _DASH
    + r"(?:but\s+|now\s+|instead\s+)*(?P<right>(?!not\b).+)$",
    re.IGNORECASE,
)
#: where a "not Y" tail starts: ", not", " — not", ", and not"
_TAIL = r"(?:\s*,|\s*[\u2014\u2013]|\s+-+)\s*(?:and\s+)?not\s+"
_TAIL_NOT = re.compile(r"^(?P<right>.+?)" + _TAIL + r"(?P<wrong>[^,;]+?)(?P<rest>,\s*.+)?$", re.IGNORECASE)
_IT_WAS_HEAD = re.compile(
    r"^(?:it|that|this|he|she|they)\s*(?:was|is|were|are|'s)(?:\s+(?:actually|really))?$", re.IGNORECASE
)
_NOW = re.compile(
    r"\b(?:now|currently|these days|nowadays|at the moment|any\s?more|no longer)\b", re.IGNORECASE
)
_RETRACTION = re.compile(r"\bno longer\b|\bany\s?more\b", re.IGNORECASE)
_WORD = re.compile(r"[\w'-]+")


@dataclass(frozen=True)
class Correction:
    """What a correction says: ``wrong`` is the value it takes back (None for "I meant X" alone),
    ``right`` the value it puts in its place when the form isolates one, and ``form`` whether it
    is a statement of its own ("I moved to Porto, not Lisbon") or a bare value ("Porto")."""

    wrong: str | None
    right: str | None
    form: Form
    shape: Shape
    signalled: bool = False  # opened by "actually", "sorry", "correction" …, or a correction by its form
    #: it says what holds now ("I live in Porto now, not Lisbon", "… not Lisbon anymore, I …"): the old
    #: value held until then, so this is a change of state, not a mistake, and past events stay history
    change: bool = False


def read(quote: str) -> Correction | None:
    """The correction ``quote`` makes, or None when it makes none (most sentences, including
    those that merely contain "not": "I do not like jazz, not at all")."""
    for sentence in _sentences(quote):
        found = _read_sentence(sentence)
        if found is not None:
            return found
    return None


def bare_only(quote: str) -> bool:
    """Whether every sentence of ``quote`` is a bare correction ("Sorry, I meant Maria.", "Not Lisbon —
    Porto."): a value that says something only of the memory it corrects."""
    found = [_read_sentence(s) for s in _sentences(quote)]
    return bool(found) and all(c is not None and c.form == "bare" for c in found)


def _read_sentence(sentence: str) -> Correction | None:
    if len(sentence) > MAX_SENTENCE_CHARS:
        return None
    lead = _LEAD.match(sentence)
    body = sentence[lead.end() :].strip() if lead else sentence.strip()
    for reader in (_meant, _lead_not, _not_but, _no_longer, _tail_not):
        found = reader(body)
        if found is not None:
            signalled = bool(lead and _SIGNAL.search(lead.group(0))) or found.shape in _SIGNALLED_SHAPES
            change = found.shape == "no_longer" or bool(_NOW.search(body))
            return replace(found, signalled=signalled or found.form == "bare", change=change)
    return None


def _meant(body: str) -> Correction | None:
    m = _MEANT.match(body)
    if not m:
        return None
    wrong = _value(m["wrong"]) if m["wrong"] else None
    if m["wrong"] and wrong is None:
        return None
    return _made(wrong, m["right"], "meant")


def _lead_not(body: str) -> Correction | None:
    m = _LEAD_NOT.match(body)
    if not m or _IDIOM.match(m["wrong"]):
        return None
    return _bare(_made(_value(m["wrong"]), m["right"], "lead_not"))


def _not_but(body: str) -> Correction | None:
    m = _NOT_BUT.match(body)
    if not m or _IDIOM.match(m["wrong"]):
        return None
    head = m["head"].strip()
    if head and not _IT_WAS_HEAD.match(head):  # "I moved not to Lisbon but to Porto": a statement
        wrong = _value(m["wrong"])
        return Correction(wrong, None, "statement", "not_but") if wrong else None
    return _bare(_made(_value(m["wrong"]), m["right"], "not_but"))


def _bare(found: Correction | None) -> Correction | None:
    """``found`` when it is a bare correction, else None: "Not easy, but I …" is no correction."""
    return found if found is not None and found.form == "bare" else None


def _no_longer(body: str) -> Correction | None:
    m = _NO_LONGER.match(body)
    if not m or not _RETRACTION.search(m["negated"]) or not _SUBJECT_START.match(m["right"]):
        return None
    wrong = _value(re.sub(r"\s+any\s?more$", "", m["wrong"], flags=re.IGNORECASE))
    return Correction(wrong, None, "statement", "no_longer") if wrong else None


def _tail_not(body: str) -> Correction | None:
    m = _TAIL_NOT.match(body)
    if not m or _IDIOM.match(m["wrong"]):
        return None
    wrong = _value(m["wrong"])
    if wrong is None:
        return None
    right = re.sub(r"^" + _IT_WAS, "", m["right"].strip(), flags=re.IGNORECASE)
    if right != m["right"].strip():  # "It was Maria, not Anna": the value alone
        return Correction(wrong, _value(right), "bare", "tail_not") if _value(right) else None
    return _made(wrong, right, "tail_not")


def _made(wrong: str | None, right: str, shape: Shape) -> Correction | None:
    """A correction of ``wrong`` by ``right``: bare when ``right`` is a value, else a statement. Only
    "I meant X" may leave the wrong value unsaid."""
    if wrong is None and shape != "meant":
        return None
    right = right.strip().rstrip(".!?…").strip()
    if _is_value(right):
        value = _value(right)
        return Correction(wrong, value, "bare", shape) if value else None
    return Correction(wrong, None, "statement", shape)


def _is_value(phrase: str) -> bool:
    """Whether ``phrase`` names a value rather than states something: "Porto", "New York", "my brother",
    "March 2025" are values; "I moved to Porto" and "Caroline moved to Boston" are statements."""
    ws = phrase.split()
    if not ws or _SUBJECT_START.match(phrase):
        return False
    if len(ws) <= 2 or all(w[:1].isupper() or w[:1].isdigit() for w in ws):
        return len(ws) <= 4
    return len(ws) <= 4 and bool(_DETERMINER_START.match(phrase))


def _value(phrase: str | None) -> str | None:
    """A value as said ("Lisbon", "to Lisbon"), without closing punctuation; None when it holds no word
    that carries meaning ("at all", "now", "me")."""
    if not phrase:
        return None
    value = phrase.strip().strip("\"'“”‘’").rstrip(".!?…").strip()
    words = [w.lower() for w in _WORD.findall(value)]
    if not words or all(w in _FUNCTION_WORDS for w in words) or len(words) > 6:
        return None
    return value


def restated(text: str, correction: Correction) -> str:
    """``text`` (a correction's statement, as extracted) without its "not Y" part: "User moved to Porto,
    not Lisbon." -> "User moved to Porto."; "User no longer lives in Lisbon, User lives in Porto." ->
    "User lives in Porto."; "User meant User moved to Porto." -> "User moved to Porto."."""
    wrong = re.escape(correction.wrong) if correction.wrong else r"[^,;.]+?"
    out = text
    if correction.shape == "not_but":
        out = re.sub(r"\bnot\s+" + wrong + r"\s*,?\s+but\s+(?:rather\s+|instead\s+)?", "", out, flags=re.I)
    elif correction.shape == "tail_not":
        out = re.sub(_TAIL + wrong + r"\s*,\s+", " ", out, count=1, flags=re.I)  # "…, not Y, on Sunday"
        out = re.sub(_TAIL + wrong + r"(?=\s*[.;!?]|\s*$)", "", out, count=1, flags=re.I)
    elif correction.shape in ("no_longer", "lead_not"):
        parts = re.split(_DASH, out, maxsplit=1)
        if len(parts) == 2 and (correction.shape == "lead_not" or _RETRACTION.search(parts[0])):
            out = parts[1]
        out = re.sub(r"^(?:but|now|instead)\s+", "", out.strip(), flags=re.I)
    elif correction.shape == "meant":
        out = re.sub(r"^(?:\S+\s+)?meant(?:\s+to\s+say)?(?:\s+that)?\s*[:,]?\s+", "", out, flags=re.I)
    out = " ".join(out.split()).strip(" ,;")
    out = out[:1].upper() + out[1:]
    return out if out.endswith((".", "!", "?", "…")) else out + "."


def substituted(text: str, wrong: str, right: str) -> str | None:
    """``text`` with ``wrong`` (whole words, any case) replaced by ``right``, or None when it does not hold it."""
    pattern = _phrase(wrong)
    if pattern is None or not pattern.search(text):
        return None
    return pattern.sub(lambda _: right, text, count=1)


def holds(text: str, value: str | None, wrong: str) -> bool:
    """Whether a memory (its words, its value) holds ``wrong``: the same value, or those words in its text."""
    if value is not None and _plain(value) == _plain(wrong):
        return True
    pattern = _phrase(wrong)
    return pattern is not None and pattern.search(text) is not None


def bare_wrong(wrong: str) -> str | None:
    """``wrong`` without its opening function words ("to Lisbon" -> "Lisbon", "live in Lisbon" -> None:
    a verb stays), for a memory that words the same value another way; None when nothing is left to drop."""
    words = wrong.split()
    i = 0
    while i < len(words) - 1 and words[i].lower() in _FUNCTION_WORDS:
        i += 1
    return " ".join(words[i:]) if i else None


def _phrase(words: str) -> re.Pattern[str] | None:
    parts = [re.escape(w) for w in _WORD.findall(words)]
    if not parts:
        return None
    return re.compile(r"(?<![\w'-])" + r"[\s,]+".join(parts) + r"(?![\w-])", re.IGNORECASE)


def _plain(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).strip(" .")


def _sentences(quote: str) -> list[str]:
    text = unicodedata.normalize("NFKC", quote).replace("\u2019", "'")
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", text) if p.strip()]
    return [p.rstrip(".!?…").strip() for p in parts]
