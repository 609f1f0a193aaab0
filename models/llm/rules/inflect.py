"""Third person to second: a memory about the user, said to the user ("User lives in Oslo." -> "You live in
Oslo.").

A memory's text names the user "User" in the third person. Said back to the user, each "User" that is a
subject becomes "you" and the verb it governs agrees with it: the auxiliaries by a small table (is -> are,
doesn't -> don't, wasn't -> weren't), every other verb by lemminflect's English lexicon (a third-person
singular present form goes back to its lemma: "focuses" -> "focus", "watches" -> "watch"; a past form or
a modal stays). Adverbs between the subject and the verb ("User really loves") are skipped over. "User's"
becomes "your", any other "User" "you", and a reflexive that pointed back to the user "yourself". A "you"
in a clause of the person's own words that also names them is whom they spoke to: it becomes "the
assistant" first ("User told you" is said "you told the assistant", never "you told you").
lemminflect is loaded on first use, without spaCy (core/text/lexicon.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

from veramem_desktop.core.recall import statements
from veramem_desktop.core.text.lexicon import lexicon
from veramem_desktop.models.llm.rules.wording import addressee_named

#: agreement of the auxiliaries, and of forms a verb table does not hold ("ares" is "are" said twice)
_AUX = {
    "is": "are",
    "was": "were",
    "has": "have",
    "does": "do",
    "isn't": "aren't",
    "wasn't": "weren't",
    "hasn't": "haven't",
    "doesn't": "don't",
    "ares": "are",
    "am": "are",
    "'s": "'re",
}
#: a "User" in subject position: at the start, or after a clause boundary or a conjunction
_SUBJECT = re.compile(
    r"(?P<pre>^|[.;:!?(]\s+|,\s+|\b(?i:and|but|or|so|because|since|as|while|when|if|that|then|now|until)\s+"
    # or anywhere before an auxiliary that can only be a finite verb ("first time in months User has had …")
    r"|(?:\s+|[\"“‘])(?=User\s+(?:is|was|has|does)(?:n['’]t)?\b))"
    r"User(?P<gap>\s+)(?P<rest>.*)",
    re.DOTALL,
)
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|'s\b")
_REFLEXIVE = re.compile(r"\b(?:himself|herself|themselves|themself)\b")
#: at most this many adverbs are stepped over between a subject and its verb
_MAX_ADVERBS = 3


@lru_cache(maxsize=4096)
def agree(word: str) -> str:
    """``word``, the verb after a subject "you", made to agree with it: a third-person singular present
    goes back to its lemma ("lives" -> "live"), an auxiliary by the table; anything else is kept."""
    low = word.lower()
    if low in _AUX:
        return _same_case(word, _AUX[low])
    if not low.endswith("s") or len(low) < 3:
        return word
    lex = lexicon()
    getAllLemmas, getInflection, getLemma = lex.getAllLemmas, lex.getInflection, lex.getLemma
    lemmas = getAllLemmas(low)
    if lemmas and not ({"VERB", "AUX"} & lemmas.keys()):
        return word  # a known word that is never a verb ("news", "always")
    lemma = (lemmas.get("VERB") or lemmas.get("AUX") or getLemma(low, upos="VERB") or (low,))[0]
    if lemma == "be":
        return _same_case(word, "are")
    if lemma != low and low in getInflection(lemma, tag="VBZ"):
        return _same_case(word, lemma)
    return word


@lru_cache(maxsize=4096)
def _readings(word: str) -> frozenset[str]:
    """The parts of speech lemminflect's lexicon knows ``word`` as."""
    return frozenset(lexicon().getAllLemmas(word.lower()))


def _adverb(word: str, following: str) -> bool:
    """Whether ``word``, before ``following``, is an adverb between a subject and its verb: an adverb that
    is never a verb ("really", "often"), or one that can be ("still") when a verb follows it."""
    readings = _readings(word)
    if "ADV" not in readings:
        return False
    return not ({"VERB", "AUX"} & readings) or bool({"VERB", "AUX"} & _readings(following))


def _next_word(text: str, position: int) -> str:
    m = _WORD.search(text, position)
    return m.group(0) if m else ""


def _same_case(original: str, word: str) -> str:
    return word[:1].upper() + word[1:] if original[:1].isupper() else word


def _verb_agrees(rest: str) -> str:
    """The words after a subject "you": the first one that is not an adverb made to agree."""
    position = 0
    for _ in range(_MAX_ADVERBS + 1):
        m = _WORD.match(rest, position)
        if m is None:
            return rest
        word = m.group(0)
        if _adverb(word, _next_word(rest, m.end())):
            position = m.end()
            while position < len(rest) and rest[position] == " ":
                position += 1
            continue
        return rest[: m.start()] + agree(word) + rest[m.end() :]
    return rest


def second_person(text: str) -> str:
    """A third-person memory about the user, said to the user: "User doesn't eat meat." -> "You don't eat
    meat."; "User's sister lives in Oslo." -> "Your sister lives in Oslo."."""
    if "User" not in text:
        return text
    # a "you" left in the person's own words is whom they said them to, the assistant ("User told you"):
    # never the person the memory is now said to
    text = _to_the_assistant(text, _USER)
    out = re.sub(r"\bUser's\b", "User’s", text)  # possessives are set apart before subjects are read
    position = 0
    while (m := _SUBJECT.search(out, position)) is not None:
        start = m.start("pre") + len(m["pre"])
        you = "You" if start == 0 or out[:start].rstrip().endswith((".", "!", "?")) else "you"
        rest = _verb_agrees(m["rest"])
        out = out[:start] + you + m["gap"] + rest
        position = start + len(you)
    out = re.sub(r"\bUser’s\b", "your", out)
    out = re.sub(r"\bUser\b", "you", out)
    if "you" in out.lower():
        out = _REFLEXIVE.sub("yourself", out)
    return out[:1].upper() + out[1:] if out.startswith(("you", "your")) else out


#: the past of the auxiliaries after "you"
_AUX_PAST = {
    "are": "were",
    "have": "had",
    "do": "did",
    "aren't": "weren't",
    "haven't": "hadn't",
    "don't": "didn't",
    "can": "could",
    "will": "would",
    "can't": "couldn't",
    "won't": "wouldn't",
}


@lru_cache(maxsize=4096)
def past_of(word: str) -> str:
    """``word``, a present verb after "you", in the past ("live" -> "lived", "are" -> "were"); a word that
    is no present verb (a past form already, a modal with no past) is kept."""
    low = word.lower()
    if low in _AUX_PAST:
        return _same_case(word, _AUX_PAST[low])
    lemmas = lexicon().getAllLemmas(low)
    if "VERB" not in lemmas or lemmas["VERB"][0] != low:
        return word  # not a verb, or not its present ("moved", "used")
    past = lexicon().getInflection(low, tag="VBD")
    return _same_case(word, past[0]) if past else word


_YOUR_BE = re.compile(r"Your\s+(?:[\w'-]+\s+){1,4}?(?P<verb>is|are|has|have)\b")
_BE_PAST = {"is": "was", "are": "were", "has": "had", "have": "had"}


def in_the_past(text: str) -> str:
    """A second-person present statement told as past: "You live in Oslo." -> "You lived in Oslo."; the
    verb after a leading "You" (adverbs stepped over) is the one moved."""
    owned = _YOUR_BE.match(text)
    if owned is not None:  # "Your partner is Ana." -> "Your partner was Ana."
        return _then(text[: owned.start("verb")] + _BE_PAST[owned["verb"]] + text[owned.end("verb") :])
    m = re.match(r"(You\s+)(.*)", text, re.DOTALL)
    if m is None:
        return text
    rest = m[2]
    position = 0
    for _ in range(_MAX_ADVERBS + 1):
        w = _WORD.match(rest, position)
        if w is None:
            return text
        if _adverb(w.group(0), _next_word(rest, w.end())):
            position = w.end() + 1
            continue
        return _then(m[1] + rest[: w.start()] + past_of(w.group(0)) + rest[w.end() :])
    return text


def _then(text: str) -> str:
    """A statement told as past without its words for the present: what held "now" when it was said held
    then ("You were now the owner of a Jazz" says "now" of no time)."""
    return _NOW.sub("", text)


#: a word for the present standing alone ("by now", "for now" and "until now" say a span; kept)
_NOW = re.compile(r"(?<!\bby)(?<!\bfor)(?<!\buntil)(?<!\btill)\s+(?:now|currently)\b(?=[\s.,;!?]|$)", re.I)


_FIRST = [
    (re.compile(r"\bI'm\b"), "you're"),
    (re.compile(r"\bI am\b"), "you are"),
    (re.compile(r"\bI was\b"), "you were"),
    (re.compile(r"\bI've\b"), "you've"),
    (re.compile(r"\bI'd\b"), "you'd"),
    (re.compile(r"\bI'll\b"), "you'll"),
    (re.compile(r"\bI\b"), "you"),
    (re.compile(r"\b[Mm]yself\b"), "yourself"),
    (re.compile(r"\b[Mm]y\b"), "your"),
    (re.compile(r"\b[Mm]ine\b"), "yours"),
    (re.compile(r"\bme\b"), "you"),
]


def first_to_second(text: str) -> str:
    """The user's own first-person words said back to them: "I was in Berlin." -> "You were in Berlin."
    (a verb after "I" already agrees with "you", but for "am" and "was"). Whom they said them to, their
    "you", is the assistant: "can you help me" -> "can the assistant help you"."""
    out = _to_the_assistant(text, _FIRST_PERSON)
    for pattern, replacement in _FIRST:
        out = pattern.sub(replacement, out)
    return out[:1].upper() + out[1:] if out[:1].islower() and text[:1].isupper() else out


#: thanks said to whoever listens, never to the person it is said back to
_THANK_YOU = re.compile(r"\b([Tt]hank) you\b")
#: a word the person says of themselves, which turns into "you" when their words are said back to them
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Mm]y|[Mm]e|[Mm]yself|[Mm]ine)\b")
#: the person, in a memory's words
_USER = re.compile(r"\bUser\b")


def _to_the_assistant(text: str, person: re.Pattern[str]) -> str:
    """``text`` with the "you" of each clause that also names the person (``person``) named the assistant,
    in the third person: there "you" is whom the person spoke to ("User told you", "can you help me"). A
    "you" in a clause without the person may be anyone ("you can see the sea from there"): it stays."""
    if not re.search(r"\b[Yy]ou", text):
        return text
    text = _THANK_YOU.sub(lambda m: m[1] + "s", text)  # thanks said, to no one in particular

    def named(clause: str) -> str:
        return addressee_named(clause, "the assistant") if person.search(clause) else clause

    out = statements.each_clause(text, named)
    return re.sub(r"(^|[.!?]\s+)the assistant\b", lambda m: m[1] + "The assistant", out)
