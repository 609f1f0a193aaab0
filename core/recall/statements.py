"""Which attribute of whom a hit states, read from the inventory (core/attributes.py) without a parse.

Recall's safety net (core/recall/safety_net.py) needs, for a hit the write path left without a key,
the attribute it states, whose it is, the values it names and whether it tells history. The inventory
says it as data: each attribute's frames (a verb lemma with its particle, the preposition before the
value, a fixed object: "move to", "start at", "hand in notice"), the nouns that name it ("flat",
"employer") and the values that give it away ("vegan"). A statement's words are looked up in lemma form
(lemminflect's English lexicon: "moved" is "move", "flats" is "flat"); what is read is:

- a frame of the attribute: its verb, then its particle, object and preposition in that order within a
  few words ("started as a UX researcher at Fietsbank" is "start at"); a frame of many uses (weak)
  counts only when a noun or a value of the same attribute is said too; a bare "be" counts never;
- a noun of the attribute said as the speaker's own or as new ("my employer", "the new flat", "our
  new place"), never a noun alone ("a place called Nobu");
- whose: the words before the first cue. "I", "we" or nothing (a statement said without a subject)
  is the speaker; "my brother", "his", "Ana" is someone else, and the hit states nothing of the speaker;
- the values: the names and numbers it holds past its first word ("Amsterdam", "Fietsbank", "21:30")
  and the inventory's values of the attribute ("vegan");
- history: "used to", "back when", "when I still", or a frame of a lasting state said in the past
  ("I lived in Berlin", "when I worked at Acme"): it tells what held, not what holds.

A statement read as several attributes ("I started at Fietsbank as a UX researcher": start at, start
as) states the first one said whose noun or value it also names, else the first one said (the
inventory's order breaking a tie). The attributes' description vectors were measured as a tie-breaker
and left out: on short chat sentences the nearest description was wrong about one time in five ("Joined
Fietsbank" nearest to bank, "works at Lumen Health" to doctor), and a list of memories would need them
too. A few dozen dictionary lookups per hit, cached per text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

from veramem_desktop.core import attributes
from veramem_desktop.core.attributes import Attribute, Frame
from veramem_desktop.core.recall.query import NOW
from veramem_desktop.core.text.lexicon import known, lexicon
from veramem_desktop.core.text.terms import STOPWORDS

#: words between a frame's verb and its particle, object or preposition, at most
_REACH = 6
WORD = re.compile(r"[^\W\d_](?:[^\W_]|['’-])*|\d[\d:.,]*")


@cache
def typed_bare(words: frozenset[str]) -> frozenset[str]:
    """``words`` and their contractions as people type them without the apostrophe ("shes", "im"), where
    that spelling is no other word the lexicon knows ("we'll" is not "well", "i'd" not "id"). Read on
    first use: the lexicon is never loaded at start-up (core/text/lexicon.py)."""
    plain = {w.replace("'", "") for w in words if "'" in w}
    return words | {w for w in plain if not lexicon().getAllLemmas(w)}


def _speaker() -> frozenset[str]:
    """The words naming the speaker, as typed with or without apostrophes."""
    return typed_bare(
        frozenset(
            {"user", "i", "we", "i'm", "we're", "i've", "we've", "i'd", "we'd", "i'll", "we'll", "me", "us"}
        )
    )


def _others() -> frozenset[str]:
    """The pronouns naming someone else, as typed with or without apostrophes."""
    return typed_bare(
        frozenset({"he", "she", "they", "his", "her", "their", "he's", "she's", "they're", "it"})
    )


OWN = frozenset({"my", "our", "user's"})
_NEW = frozenset({"new", "current"})
#: a line telling what held before, said as such: "used to", "back when", "when I still …", or a sentence
#: opening on what held when someone was or had something ("When the Pattersons were next door, Anne had
#: the key"; "When I had the Telegraph the crossword was easier")
_TOLD_PAST = re.compile(
    r"\b(?:used to|back when|back then|when (?:i|we|user) (?:still|was|were))\b"
    # "back in the Lagan Runners days", "in those days" (an era of something; not "fine back in the day, but …")
    r"|\bback in the (?:[\w'’&-]+ ){1,4}?days\b|\bin those days\b"
    r"|^\W*when\s+(?:[\w'’-]+\s+){1,3}?(?:was|were|had|still|used)\b",
    re.I,
)
_HISTORY = re.compile(_TOLD_PAST.pattern + r"|\b(?:anymore|any more)\b", re.I)
#: a sentence opening on a denial ("Not missing Albion Terrace one bit", "Never going back to Vim"): what it
#: names is behind the speaker, unless a later clause says what holds instead (:func:`_denies_only`)
_DENIAL = re.compile(r"^\W*(?:not|never|don['’]?t|doesn['’]?t|no longer)\b", re.I)
#: words that say a clause tells what holds now
_NOW = re.compile(NOW.pattern + r"|\binstead\b", re.I)
#: words that put a lasting state said in the past behind: "I lived in Berlin for five years", "until May"
_BEHIND = re.compile(
    r"\b(?:for (?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|many|several|a few|some) "
    r"(?:years?|months?|weeks?|days?|while|decades?|ages)|until|till|when|while|before|back then|ago)\b",
    re.I,
)
#: a request or a question to the assistant states nothing ("Can you help me compare …?", "Remind me …")
#: the person a request is put to, as people write "you" ("can ye …", "could youse …")
ADDRESSEE = r"(?:you|u|ya|ye|yous|youse|y'all|yall)"
_REQUEST = re.compile(
    r"^\s*(?:please|pls|plz|help me|help us|remind me|tell me|let's|lets|do you)\b|\?\s*$"
    # a modal before its subject opens a question, however the person is written ("can ye write us …")
    rf"|^\s*(?:can|could|would|will|shall)\s+(?:{ADDRESSEE}|i|we|someone|anyone)\b",
    re.I,
)
#: words the lexicon holds no lemma for that are no names: function words, and the particles and
#: shorthands of chat ("Ok switched to …", "Tbh the new one is better")
_FUNCTION_TEXT = (
    "the a an this that these those our your so and but or if unless although though whereas whether "
    "yes no oh well ok okay yeah yep yup nope lol "
    "omg btw tbh fyi imo idk ngl haha ugh hmm wow hey hi anyway also pls thx rn for from into onto with than "
    "until during against because cos coz cuz bc nor cannot dont didnt doesnt isnt wasnt arent ive"
)
FUNCTION = frozenset(_FUNCTION_TEXT.split())
BE_FORMS = frozenset(
    {"be", "is", "am", "are", "was", "were", "been", "being", "i'm", "we're", "it's", "'m", "'s"}
)
_NOT_VALUES_TEXT = """i i'm i've i'd i'll user assistant monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december today yesterday tomorrow"""
NOT_VALUES = frozenset(_NOT_VALUES_TEXT.split())


@dataclass(frozen=True)
class Read:
    """What a statement says of an attribute: which (canonical predicate), whether it says the value
    ended, whose (None: the speaker), the values it names (case-folded) and whether it tells history."""

    attributes: tuple[str, ...]
    #: those of ``attributes`` whose noun or value is said too
    named: frozenset[str]
    ends: bool
    other: bool
    values: frozenset[str]
    historic: bool
    #: whether every cue says a value ended ("walked out of Halcyon"): it states no value that holds
    only_ends: bool = False


@dataclass(frozen=True)
class _Cue:
    attribute: str
    position: int
    ends: bool = False
    state_in_past: bool = False
    #: a frame's verb (else a noun of the attribute said as the speaker's)
    verb: bool = False


@lru_cache(maxsize=8192)
def lemmas(word: str) -> frozenset[str]:
    """The word and every lemma lemminflect's lexicon gives it."""
    getAllLemmas = lexicon().getAllLemmas

    low = word.lower().replace("’", "'")
    found = {low}
    known = getAllLemmas(low)
    if not known and low.isalpha():  # a word the lexicon lacks ("remortgaged"): its rules guess the lemma
        known = {**lexicon().getAllLemmasOOV(low, "VERB"), **lexicon().getAllLemmasOOV(low, "NOUN")}
    for forms in known.values():
        found.update(forms)
    return frozenset(found)


@cache
def frames_by_head() -> dict[str, tuple[tuple[Attribute, Frame], ...]]:
    """The inventory's frames of single-valued attributes by the word their match starts from: the verb's
    lemma, or for "be <participle>" the participle ("married" for "be married to")."""
    out: dict[str, list[tuple[Attribute, Frame]]] = {}
    for attr in attributes.ATTRIBUTES:
        if attr.multi:
            continue
        for frame in attr.frames:
            words = frame.verb.split()
            if words == ["be"]:
                continue
            head = words[1] if words[0] == "be" else words[0]
            out.setdefault(head, []).append((attr, frame))
    return {k: tuple(v) for k, v in out.items()}


@cache
def _nouns(multi: bool = False) -> dict[str, tuple[tuple[tuple[str, ...], str], ...]]:
    """The nouns of single-valued attributes (``multi``: of every attribute) by their last word: (the words
    before it, the attribute)."""
    out: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for attr in attributes.ATTRIBUTES:
        if attr.multi and not multi:
            continue
        for noun in attr.nouns:
            *before, last = noun.lower().split()
            out.setdefault(last, []).append((tuple(before), attr.name))
    return {k: tuple(v) for k, v in out.items()}


def _frame_fits(frame: Frame, words: list[str], at: int) -> bool:
    """Whether ``frame`` is said from the verb at ``at``: its particle, object and preposition follow (and
    for "be <participle>", a form of "be" comes just before it), and what follows them is no value of
    another attribute ("moved everything to VS Code" is no move of home), and the verb is no noun after
    a determiner ("a drive to Cornwall")."""
    parts = frame.verb.split()
    if not _said_as_verb(parts, words, at):
        return False
    end = _fits_to(frame, parts, words, at)
    if end is None:
        return False
    particles = len(parts) - (2 if parts[0] == "be" else 1)
    if frame.prep and not frame.obj and any(_moves_someone(words, at + 1 + p) for p in {0, particles}):
        return False  # "moved Grandad into a care home": where he went, not the speaker
    after = [w.lower() for w in words[end : end + 2]]
    other = {value_attribute(" ".join(after)), *map(value_attribute, after)} - {None}
    return not other or any(a in other for a in _attribute_names_of(frame))


def _said_as_verb(parts: list[str], words: list[str], at: int) -> bool:
    """Whether the word at ``at`` is said as the frame's verb: for "be <participle>", a form of "be" comes
    just before it; any other verb is a noun after a determiner, or a determiner and an adjective
    ("planning a drive to Cornwall", "her big move to Dundee")."""
    before = [w.lower().replace("’", "'") for w in words[max(0, at - 2) : at]]
    if parts[0] == "be":
        return bool(BE_FORMS & set(before))
    before = [bare(w) for w in before]
    if before and before[-1] in _NOUN_BEFORE:
        return False
    return not (len(before) == 2 and before[0] in DETERMINERS and _only_adjective(before[1]))


@lru_cache(maxsize=4096)
def _only_noun(word: str) -> bool:
    """Whether the lexicon knows ``word`` as a noun and as nothing else but a verb ("accounts", "stuff")."""
    forms = set(lexicon().getAllLemmas(word))
    return "NOUN" in forms and forms <= {"NOUN", "VERB"}


@lru_cache(maxsize=4096)
def _only_adjective(word: str) -> bool:
    """Whether the lexicon knows ``word`` as an adjective and as nothing else ("big", "new")."""
    return set(lexicon().getAllLemmas(word)) == {"ADJ"}


def _moves_someone(words: list[str], at: int) -> bool:
    """Whether the verb's object, right after it (and its particles), is a person or a thing it acts on: a
    relation ("the kids", "Grandad"), a pronoun for people, a name ("moved Maya to a childminder"), or a
    noun after a determiner ("moved our accounts over to Nationwide")."""
    said = words[at : at + 3]
    owned = bool(said) and bare(said[0]) in DETERMINERS
    if owned:
        said = said[1:]
    if not said:
        return False
    w, low = said[0], bare(said[0])
    if attributes.relation_of_any_number(low) is not None or low in _PEOPLE:
        return True
    if owned and any(_only_noun(bare(x)) for x in said):
        return True  # a thing it moves ("moved our accounts over to Nationwide"), not the speaker
    return w[:1].isupper() and low not in FUNCTION and low not in _speaker() and not _known(low)


#: pronouns for people a verb acts on
_PEOPLE = frozenset({"him", "her", "them"})


def _attribute_names_of(frame: Frame) -> tuple[str, ...]:
    return tuple(a.name for a, f in frames_by_head().get(_head(frame), ()) if f is frame)


def _head(frame: Frame) -> str:
    words = frame.verb.split()
    return words[1] if words[0] == "be" else words[0]


def _fits_to(frame: Frame, parts: list[str], words: list[str], at: int) -> int | None:
    """Where the value would start when the frame's particle, object and preposition follow ``at``."""
    rest = parts[2:] if parts[0] == "be" else parts[1:]
    wanted = [*rest, *([frame.obj] if frame.obj else []), *([frame.prep] if frame.prep else [])]
    position = at + 1
    for want in wanted:
        window = words[position : position + _REACH]
        hit = next((i for i, w in enumerate(window) if want in lemmas(w)), None)
        if hit is None:
            return None
        position += hit + 1
    return position


def _cues(words: list[str], lowered: list[str], spans: list[tuple[int, str]], named: set[str]) -> list[_Cue]:
    """The inventory's attributes the words say, each at the word that says it (``lowered``: the words in
    lower case; ``spans``: where nouns of attributes are said; ``named``: the attributes named)."""
    cues: list[_Cue] = []
    for at, word in enumerate(words):
        for lemma in lemmas(word):
            for attr, frame in frames_by_head().get(lemma, ()):
                if frame.weak and attr.name not in named:
                    continue
                if _frame_fits(frame, words, at):
                    past = frame.state and _is_past(lowered[at], lemma)
                    cues.append(_Cue(attr.name, at, frame.ends, past, verb=True))
    cues += [_Cue(name, at) for name, at in _owned_nouns(lowered, spans)]
    return sorted(cues, key=lambda c: c.position)


@lru_cache(maxsize=8192)
def _known(word: str) -> bool:
    """Whether ``word`` is a word of English, not a name (core/text/lexicon.py), or one of ours of grammar."""
    return word in FUNCTION or known(word)


@lru_cache(maxsize=4096)
def _is_past(word: str, lemma: str) -> bool:
    """Whether ``word`` is the simple past of the verb ``lemma`` ("lived" of "live")."""
    return word != lemma and word in lexicon().getInflection(lemma, tag="VBD")


def named_attributes(lowered: list[str], spans: list[tuple[int, str]]) -> set[str]:
    """The attributes a noun (``spans``) or a value of names anywhere in the words."""
    found = {name for _, name in spans}
    found.update(a for a in map(value_attribute, lowered) if a is not None)
    # a value of several words ("virgin media", "british gas", "apple tv"), said whole
    found.update(
        a
        for n in (2, 3)
        for at in range(len(lowered) - n + 1)
        if (a := value_attribute(" ".join(lowered[at : at + n]))) is not None
    )
    return found


@lru_cache(maxsize=8192)
def value_of(word: str) -> str | None:
    """The attribute, single- or multi-valued, a word gives away as its value ("korean" a language learnt)."""
    attr = attributes.for_value(word)
    return attr.name if attr is not None else None


@lru_cache(maxsize=8192)
def value_attribute(word: str) -> str | None:
    """The single-valued attribute a word gives away as its value ("vegan" is a diet), or None."""
    attr = attributes.for_value(word)
    return attr.name if attr is not None and not attr.multi else None


def noun_spans(lowered: list[str]) -> list[tuple[int, str]]:
    """Where a noun of an attribute is said (the position of its first word), and which attribute; a noun
    inside a longer one of another attribute is not said ("coffee place" is a café, not the home a
    "place" is; "car insurance" is no car)."""
    return [(start, name) for start, _, name in noun_extents(lowered)]


def noun_extents(lowered: list[str]) -> list[tuple[int, int, str]]:
    """:func:`noun_spans` with the position of each noun's last word. A noun of a multi-valued attribute
    is never one of these, but one that holds a noun of another is said for it ("book club" is a club, no
    book read)."""
    index = _nouns(multi=True)
    found = [
        (at - len(before), at, name)
        for at, word in enumerate(lowered)
        for lemma in lemmas(word)
        for before, name in index.get(lemma, ())
        if at - len(before) >= 0 and tuple(lowered[at - len(before) : at]) == before
    ]
    return [
        (start, end, name)
        for start, end, name in found
        if not attributes.is_multi_valued(name)
        and not any(s <= start and end <= e and (s, e) != (start, end) and n != name for s, e, n in found)
    ]


def _owned_nouns(lowered: list[str], spans: list[tuple[int, str]]) -> list[tuple[str, int]]:
    """Nouns of an attribute said as the speaker's own or as new ("my employer", "the new flat")."""
    return [
        (name, at)
        for at, name in spans
        if OWN & set(lowered[max(0, at - 3) : at]) or _NEW & set(lowered[max(0, at - 2) : at])
    ]


def _other_person(before: list[str]) -> bool:
    """Whether the words before a statement's cue name someone other than the speaker as its subject."""
    low = [w.lower() for w in before]
    if _speaker() & set(low):
        return False
    if _others() & set(low):
        return True
    for i, w in enumerate(low):
        if w in OWN and i + 1 < len(low) and attributes.relation_of_any_number(low[i + 1]) is not None:
            return True
    return any(a_name(w) for w in before)


#: words that open a noun phrase: what follows them is a thing or someone named by a noun, not the speaker
DETERMINERS = frozenset({"the", "a", "an", "this", "that", "our", "my", "his", "her", "their", "its", "your"})
#: determiners after which a word is a noun ("that" and "her" also open a clause: "the firm that hired me",
#: "let her drive")
_NOUN_BEFORE = DETERMINERS - {"that", "her"}


def _thing_before(before: list[str]) -> bool:
    """Whether a frame's verb has a noun phrase for its subject, just before it ("since *the office* moved
    to Canary Wharf", "*our landlord* moved to Spain"): what moved or started is that thing or that
    person, not the speaker."""
    return (
        len(before) >= 2
        and before[-2] in DETERMINERS
        and before[-1] not in FUNCTION
        and before[-1] not in OWN
    )


def a_name(word: str) -> bool:
    """A capitalised word the lexicon does not know: a name ("Ana", "Priya"), not "Loving" or "The"."""
    return word[:1].isupper() and not _no_name(word.lower()) and not _known(word.lower())


def typed_lower(value: str) -> bool:
    """Whether a value typed in lower case is a name all the same: a word of it the lexicon does not know
    ("dr adeyemi", "pulsebox")."""
    return any(a_name(w.capitalize()) for w in value.split() if w.isalpha() and len(w) > 2)


def capitalised(word: str) -> bool:
    """A word written with a capital as a name is ("Ken", "Ana"; not "I", "NOT", a weekday or a pronoun),
    whether or not the lexicon knows it as a word: where no sentence opens, its capital is a name's."""
    return word[:1].isupper() and not (len(word) > 1 and word.isupper()) and not _no_name(word.lower())


def _no_name(low: str) -> bool:
    """Whether a word, in lower case, is never a name: the speaker, a pronoun, a word of no content (the
    lexicon knows only open-class words: "If" opening a line is no name), or a word for a relative ("Mam",
    "Bro": who someone is to the speaker, said as a name or to address them, is no value)."""
    return (
        low in NOT_VALUES
        or low in OWN
        or low in _speaker()
        or low in _others()
        or low in FUNCTION
        or low in STOPWORDS
        or attributes.relation(low) is not None
    )


def _values(words: list[str], attribute: str) -> frozenset[str]:
    """The names and numbers past the first word, and the inventory's values of ``attribute``; a single
    letter is none ("100L": a unit said after a figure)."""
    named = (
        bare(w)
        for i, w in enumerate(words)
        if i > 0 and len(w) > 1 and w[:1].isupper() and not _shouted(words, i) or w[:1].isdigit()
    )
    found = {
        w
        for w in named
        if w and w not in NOT_VALUES and not _DATE_PART.fullmatch(w) and not attributes.relation(w)
    }
    found.update(w.lower() for w in words if value_of(w.lower()) == attribute)
    return frozenset(found)


def _shouted(words: list[str], at: int) -> bool:
    """Whether the word at ``at`` is a word of the language written in capitals for stress ("is NOT
    happening"), not a name or an initialism ("NHS"), nor a word of a name in capitals ("WREN STREET
    READERS", a document's heading)."""

    def capitals(i: int) -> bool:
        return 0 <= i < len(words) and len(words[i]) > 1 and words[i].isupper()

    alone = not capitals(at - 1) and not capitals(at + 1)
    return capitals(at) and alone and _known(words[at].lower())


#: a number that is part of a date (a year, a month or a day): when it was said, not what
_DATE_PART = re.compile(r"(?:19|20)\d\d|\d{1,2}")


def bare(word: str) -> str:
    """A word as a value: lower case, without a possessive or trailing punctuation ("Ana's" -> "ana")."""
    low = word.lower().replace("’", "'").rstrip(".,:")
    return low[:-2] if low.endswith("'s") else low


@lru_cache(maxsize=8192)
def read(text: str) -> Read | None:
    """What ``text`` states of a single-valued attribute, or None when it names none (or only someone
    else's); ``attributes`` holds every one it may state, in the order they are said."""
    if _REQUEST.search(text):
        return None
    words = WORD.findall(text[:400])
    lowered = [w.lower() for w in words]
    spans = noun_spans(lowered)
    named_all = named_attributes(lowered, spans)
    # the label of a labelled line ("Statement date: 2022-01-14") names a field, never says a verb
    label = _LABEL.match(text)
    opening = len(WORD.findall(label.group(0))) if label else 0
    cues = [c for c in _cues(words, lowered, spans, named_all) if not (c.verb and c.position < opening)]
    if not cues:
        return None
    first = cues[0]
    other = _other_person(words[: first.position]) or (
        first.verb and _thing_before(lowered[: first.position])
    )
    names = tuple(dict.fromkeys(c.attribute for c in cues))
    behind = any(c.state_in_past for c in cues) and bool(_BEHIND.search(text))
    historic = behind or _told_before(text)
    said = WORD.findall(sentence_case(text[:400]))
    values = _values(said, names[0]) if len(names) == 1 else _values(said, "")
    attached = attached_values(text, names[0]) if len(names) == 1 else None
    if attached is not None:  # said by its noun alone: only the names attached to the noun are its values
        values = attached | given_values(words, names[0])
    named = frozenset(named_all & set(names))
    ends = [c.ends for c in cues]
    return Read(names, named, any(ends), other, values, historic, all(ends))


#: a line's label: up to four words before a colon that opens it ("Renewal date:", "- shoes:")
_LABEL = re.compile(r"^\W*(?:[^\W\d_][\w'’-]*\s+){0,3}[^\W\d_][\w'’-]*\s*:(?!\d)")

#: words that attach a name to the noun before them ("the new flat *in* Bristol", "a dog *called* Pip")
_ATTACH = frozenset({"in", "at", "on", "near", "with", "by", "called", "named", "is", "was", "-", "of"})


def attached_values(text: str, attribute: str) -> frozenset[str] | None:
    """For a statement that speaks of ``attribute`` by a noun of it and by no frame ("the new place is
    great", "our Leeds flat"), the names attached to that noun: just before it ("Leeds flat"), just after
    it or after a word that attaches ("the new flat in Bristol", "my employer, Acme"). A name said
    elsewhere ("from the new place to Temple Meads") is no value of it. None when a frame of the
    attribute is said (its value is wherever the frame puts it) or none of its nouns is."""
    attr = attributes.by_name(attribute)
    if attr is None or not attr.nouns:
        return None
    words = WORD.findall(text[:400])
    lasts = {noun.lower().split()[-1] for noun in attr.nouns}
    places = [i for i, w in enumerate(words) if lemmas(w) & lasts and not _in_a_name(words, i)]
    if not places or _frame_said(words, attribute):
        return None
    found: set[str] = set()
    for i in places:
        if i > 0 and _a_value_word(words[i - 1]) and not words[i - 1].lower().endswith("'s"):
            found.add(bare(words[i - 1]))
        start = _past_be(words, i + 1)
        start += start < len(words) and words[start].lower() in _ATTACH
        found.update(_names_from(words, start) if start < len(words) and _a_value_word(words[start]) else ())
        found.update(_named_as(words, i))
    return frozenset(found)


def _in_a_name(words: list[str], at: int) -> bool:
    """Whether the word at ``at`` is part of a name of several capitalised words ("the Dogs Trust", "The Gym
    Group"), not a noun of its own ("my GP", "Gym's back open")."""
    word = words[at]
    if not word.istitle():
        return False
    before = at > 1 and words[at - 1][:1].isupper()
    return before or (at + 1 < len(words) and words[at + 1][:1].isupper())


def _past_be(words: list[str], at: int) -> int:
    """Where a name due after a noun starts, past a verb group of "be" from ``at`` ("my new manager *will
    be* Dre", "the new place *is now* in Leith", "the landlord *has been* Kev"): the group's last word
    stays, as an attaching word ("be", "is")."""
    end = at
    while end < len(words) and end - at < 3 and words[end].lower().replace("’", "'") in _BE_GROUP:
        end += 1
    if end > at and words[end - 1].lower() in _ATTACH:
        return end - 1
    return end


_MODALS = frozenset({"will", "would", "shall", "should", "might", "must"})
#: the words of a verb group of "be" (its forms, the modals and auxiliaries before it, "now", "still")
_BE_GROUP = BE_FORMS | _MODALS | {"has", "have", "had", "now", "still"}


def _named_as(words: list[str], at: int) -> list[str]:
    """The name said to be the noun at ``at`` by a "be" before it: "Jen Alvarez is now my direct
    manager" (a few words of the noun's own between: an owner, "new", "now"; never a preposition)."""
    j = at - 1
    while j >= 0 and at - j <= 4 and words[j].lower().replace("’", "'") not in BE_FORMS:
        if words[j].lower() in _PREPOSITIONS or _a_value_word(words[j]) and bare(words[j]) != "user":
            return []
        j -= 1
    if j < 1 or words[j].lower().replace("’", "'") not in BE_FORMS:
        return []
    names: list[str] = []
    for w in reversed(words[max(0, j - 3) : j]):
        if not _a_value_word(w):
            break
        names.append(bare(w))
    return names


#: prepositions a name said to be a noun never stands behind ("a boss *of* …")
_PREPOSITIONS = frozenset({"of", "for", "at", "in", "on", "with", "from", "to", "by", "about"})


def given_values(words: list[str], attribute: str) -> frozenset[str]:
    """The words that are values of ``attribute`` by the inventory ("vegan" a diet)."""
    return frozenset(w.lower() for w in words if value_attribute(w.lower()) == attribute)


def _a_value_word(word: str) -> bool:
    name = bare(word)
    if name in NOT_VALUES or name in _speaker() or name in OWN or name in FUNCTION or name in _others():
        return False
    return word[:1].isupper() or word[:1].isdigit()


def frame_said(text: str, attribute: str) -> bool:
    """Whether a frame of ``attribute`` (not an ending) is said in ``text``."""
    return _frame_said(WORD.findall(text[:400]), attribute)


def _frame_said(words: list[str], attribute: str) -> bool:
    """Whether a frame of ``attribute`` (not an ending) is said in ``words``."""
    for at, word in enumerate(words):
        for lemma in lemmas(word):
            for attr, frame in frames_by_head().get(lemma, ()):
                if attr.name == attribute and not frame.ends and _frame_fits(frame, words, at):
                    return True
    return False


def attribute_of(found: Read) -> str:
    """The one attribute a read statement states: the first said whose noun or value it names too, else
    the first said."""
    return next((a for a in found.attributes if a in found.named), found.attributes[0])


#: "the old one", "my former boss", "our previous flat": a value said as one that no longer holds
_FORMER = re.compile(r"\b(?:my|our|the|his|her|their|user's) (?:old|former|previous|ex)\b", re.I)


#: where one sentence of a message ends and the next begins
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


@lru_cache(maxsize=8192)
def ended(text: str) -> frozenset[str]:
    """The values ``text`` says stopped holding: those named by its sentences that only say a value ended
    ("walked out of Halcyon for good"), and by its clauses that say one of the inventory's endings
    (:func:`clause_stops`: "Biscuit passed away", "Harcourt closed down, booked Linden Garage instead"),
    less any another sentence or clause of it states ("…, now at Orrin")."""
    stopped: set[str] = set()
    holding: set[str] = set()
    for sentence in _SENTENCE_END.split(text[:600]):
        found = read(sentence)
        parts = _split(sentence)
        if found is not None and found.only_ends and len(parts) == 1:
            stopped.update(values(sentence, ""))
            continue
        for clause in parts:  # of several clauses, each says what it says ("X retired, we've switched to Y")
            stops = clause_stops(clause)
            stopped.update(stops)
            holding.update(values(clause, "") - stops)
    return frozenset(stopped - holding)


def without_told_ends(sentence: str) -> str:
    """``sentence`` without its clauses that only tell an old value ended, said of the thing itself
    ("Harcourt closed down, booked Linden Garage instead" gives "Booked Linden Garage instead"; "…,
    goodbye call centre" is left out): what holds, said alone; the whole sentence when no such clause is
    there or nothing else is said. "Theo dropped swimming, …" stays: it says who ended it."""
    return without_clauses(sentence, _told_end)


def clauses_of(sentence: str) -> list[str]:
    """The clauses :func:`without_clauses` reads ``sentence`` as, in order."""
    return [clause for clause, _ in _clause_parts(sentence)]


def _clause_parts(sentence: str) -> list[tuple[str, str]]:
    """Each clause of ``sentence`` with the separator after it (none after the last)."""
    parts: list[tuple[str, str]] = []
    at = 0
    for cut in _cuts(sentence):
        parts.append((sentence[at : cut.start()], cut.group(0)))
        at = cut.end()
    return [*parts, (sentence[at:], "")]


def each_clause(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to each of its clauses, the separators between them as they were."""
    return "".join(change(clause) + sep for clause, sep in _clause_parts(text))


def without_clauses(sentence: str, drop: Callable[[str], bool]) -> str:
    """``sentence`` without the clauses ``drop`` picks, rejoined with the separators between those kept;
    the whole sentence when none is picked or nothing else is said."""
    parts = _clause_parts(sentence)
    kept = [(clause, sep) for clause, sep in parts if not drop(clause)]
    if len(kept) == len(parts) or not any(WORD.search(clause) for clause, _ in kept):
        return sentence
    text = ("".join(clause + sep for clause, sep in kept[:-1]) + kept[-1][0]).strip().rstrip(",;:-–—").strip()
    # a bracket whose close was dropped is closed (a face drawn with one, ":(", is no bracket)
    text += ")" * max(0, len(_OPENING.findall(text)) - len(_CLOSING.findall(text)))
    close = sentence.rstrip()[-1:]
    if close in ".!?" and text[-1:] not in ".!?":
        text += close
    return text[:1].upper() + text[1:]


_OPENING = re.compile(r"(?<![:;=])\(")
_CLOSING = re.compile(r"(?<![:;=])\)")


def _told_end(clause: str) -> bool:
    """Whether a clause tells an old value ended, said of the thing itself ("Harcourt closed down",
    "goodbye call centre")."""
    stops = clause_stops(clause)
    first = WORD.findall(clause)[:1]
    return bool(stops) and bool(first) and (bare(first[0]) in stops or bool(_FAREWELL.match(clause.strip())))


def others_clauses(text: str) -> str:
    """``text`` without its clauses that open with the speaker ("Kofi lives there, I'm in Leicester" gives
    "Kofi lives there"): what a statement names there is the speaker's, not the person it speaks of."""
    kept = []
    for sentence in _SENTENCE_END.split(text[:600]):
        for clause in _split(sentence):
            if not _opens_on_speaker(clause):
                kept.append(clause)
    return ", ".join(kept)


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (its first 600 characters), without empty ones."""
    return [s.strip() for s in _SENTENCE_END.split(text[:600]) if s.strip()]


#: a verb said in the negative, apostrophe typed or not ("hasn't had", "hasnt had", "never")
_NEGATED = re.compile(
    r"\b(?:(?:is|are|was|were|has|have|had|do|does|did|ca|could|would|should|wo|must)n['’]?t|can['’]?t|cannot"
    r"|never|no longer)\b",
    re.I,
)
#: a name said after "not" ("it's Priya now not Tom", "goes to Lloyds now, not boots anymore")
_NOT_NAME = re.compile(r"\bnot\s+(?:(?:the|a|an|at|with|on|in|to)\s+)?([^\W\d_][\w'’&-]*)", re.I)


def said_after_not(text: str) -> frozenset[str]:
    """The words ``text`` puts right after a bare "not" ("Lloyds now, not boots anymore": "boots")."""
    return frozenset(bare(m.group(1)) for m in _NOT_NAME.finditer(text))


def denied(text: str) -> frozenset[str]:
    """The names ``text`` says only as not holding: in a clause whose verb is in the negative ("Boots hasnt
    had my prescription since spring", "I don't work at Acme now"), or right after "not" ("Lloyds now, not
    boots anymore"); a name another clause says as holding is not taken away."""
    said_in: dict[bool, set[str]] = {True: set(), False: set()}
    for sentence in sentences(text):
        for clause in clauses(sentence):
            nots = {bare(m.group(1)) for m in _NOT_NAME.finditer(clause)}
            words = {bare(w) for w in WORD.findall(clause)}
            negated = bool(_NEGATED.search(clause))
            said_in[True].update(words if negated else nots)
            said_in[False].update(set() if negated else words - nots)
    return frozenset(said_in[True] - said_in[False])


def clauses(sentence: str) -> list[str]:
    """The clauses of one sentence, as :data:`_CLAUSE` parts them, without empty ones."""
    return [c.strip() for c in _split(sentence) if c.strip()]


def _cuts(sentence: str) -> list[re.Match[str]]:
    """Where :data:`_CLAUSE` parts ``sentence``, less an "and" between two names: "Sarah and Tom", "Dan and
    Priya" are one phrase, never two clauses."""
    return [
        m
        for m in _CLAUSE.finditer(sentence)
        if not (
            m.group(0).strip().lower() == "and"
            and sentence[m.end() : m.end() + 1].isupper()
            and (WORD.findall(sentence[: m.start()])[-1:] or [""])[0][:1].isupper()
        )
    ]


def _split(sentence: str) -> list[str]:
    """``sentence`` parted at :func:`_cuts`."""
    parts, at = [], 0
    for cut in _cuts(sentence):
        parts.append(sentence[at : cut.start()])
        at = cut.end()
    return [*parts, sentence[at:]]


#: where a sentence's clauses part: a comma, a semicolon, a dash, "and", "but", "so", "then", and
#: before a reason ("because", "bc", "cos")
_CLAUSE = re.compile(
    r"\s*[,;:]\s*(?:(?:and|but|so|then)\s+)?|\s+[-–—]\s+|\s+(?:and|but|so|then)\s+|\s+(?=(?:because|bc|cos|coz|cuz)\s)",
    re.I,
)


@cache
def _ending_heads() -> dict[str, tuple[tuple[Attribute | None, Frame], ...]]:
    """The inventory's endings (attributes.endings: multi-valued attributes and relations included) by
    the word their match starts from."""
    out: dict[str, list[tuple[Attribute | None, Frame]]] = {}
    for attr, frame in attributes.endings():
        out.setdefault(_head(frame), []).append((attr, frame))
    return {k: tuple(v) for k, v in out.items()}


def stopped_by_speaker(clause: str) -> bool:
    """Whether ``clause`` opens on the speaker ("User gave up …", "we've ditched …") or on the ending's own
    verb, its subject left out ("Quit the climbing gym"): the speaker stopped what it names."""
    first = WORD.findall(clause)[:1]
    return _opens_on_speaker(clause) or bool(first and lemmas(first[0].lower()) & _ending_heads().keys())


def _opens_on_speaker(clause: str) -> bool:
    """Whether ``clause``'s first word names the speaker ("I'm …", "we've …", "User …")."""
    first = WORD.findall(clause)[:1]
    return bool(first) and first[0].lower().replace("’", "'") in _speaker()


@lru_cache(maxsize=4096)
def clause_stops(clause: str) -> frozenset[str]:
    """The values one clause says stopped by an ending of the inventory, said by its verb and particle
    whatever the attribute, whether one or several values hold, and whoever's it is: the name after the
    ending ("quit Acme", "gave up on Italian"), else a value of the ending's attribute the clause gives
    ("dropped swimming"), else the name the ending is said of ("Biscuit passed away", "Gerald's old Rufus
    died", "Harcourt closed down"). An ending of many uses ("drop", "leave") counts only when a noun or a
    value of its attribute is said too. Empty when no ending is said."""
    if farewell := _FAREWELL.match(clause.strip()):  # "goodbye call centre", "no more trains"
        said = [bare(w) for w in WORD.findall(farewell.group(1))]
        return frozenset(
            w for w in said[:4] if w not in FUNCTION and w not in _LEAD_IN and w not in NOT_VALUES
        )
    words = WORD.findall(clause[:300])
    for at, word in enumerate(words):
        for lemma in lemmas(word):
            for attr, frame in _ending_heads().get(lemma, ()):
                end = _ending_fits(frame, words, at)
                if end is None:
                    continue
                given = _gives(attr, words)
                if frame.weak and not given and not _names_noun(attr, words) and not _name_at(words, end):
                    continue  # "left work early"; "left Lagan Runners" ends whatever Lagan Runners was
                if frame in attributes.DROPS:  # said of its object, never of who dropped it
                    stops = _names_from(words, end)
                else:
                    stops = (
                        _names_from(words, end)
                        or _gives(attr, words[end:])
                        or _named_before(words, at)
                        or given
                    )
                if stops:
                    return stops
    return frozenset()


def _ending_fits(frame: Frame, words: list[str], at: int) -> int | None:
    """Where the value would start when ``frame`` (an ending) is said from the word at ``at``."""
    parts = frame.verb.split()
    if not _said_as_verb(parts, words, at):
        return None
    return _fits_to(frame, parts, words, at)


def _gives(attr: Attribute | None, words: list[str]) -> frozenset[str]:
    """The words of ``words`` that are values of ``attr`` by the inventory ("swimming" a sport)."""
    if attr is None:
        return frozenset()
    return frozenset(w.lower() for w in words if attributes.for_value(w.lower()) is attr)


def _name_at(words: list[str], at: int) -> bool:
    """Whether a name opens at ``at``, past an article: written with a capital ("left *Lagan Runners*", "left
    the *Mater*") or typed in lower case as a word the lexicon does not know ("leaving *corvel* after 6
    yrs"); never a word for a person of the family ("left Mum's at six"), nor a day or month."""
    while at < len(words) and words[at].lower() in ("the", "a", "an"):
        at += 1
    if at >= len(words) or not (
        words[at][:1].isupper() or _typed_name(words[at]) and not _known(words[at].lower())
    ):
        return False
    name = bare(words[at])
    end = at + 1
    while end < len(words) and words[end][:1].isupper():
        end += 1
    if end < len(words) and words[end].lower() in _SECOND_OBJECT:
        return False  # "left Tom a voicemail": the name is whom it was left for, nothing that ended
    return name not in NOT_VALUES and attributes.relation(name) is None and not _DATE_PART.fullmatch(name)


#: words opening a second object after a name ("left Tom *a* note", "left Priya *my* keys")
_SECOND_OBJECT = frozenset({"a", "an", "the", "my", "our", "his", "her", "their", "some", "it", "them"})


def _names_noun(attr: Attribute | None, words: list[str]) -> bool:
    """Whether ``words`` say a noun of ``attr`` ("quit the climbing gym")."""
    if attr is None:
        return False
    said = {lemma for w in words for lemma in lemmas(w)}
    heads = {noun.lower().split()[-1] for noun in attr.nouns}
    # a name written as one word ending with the noun says it too ("Pure*Gym*")
    return bool(heads & said) or any(
        w.lower().endswith(h) and len(w) > len(h) and w[-len(h)].isupper()
        for w in words
        for h in heads
        if len(h) >= 3
    )


#: a clause bidding a thing farewell: it ended ("goodbye call centre", "so long Vim", "no more trains")
_FAREWELL = re.compile(r"^(?:good\s?bye|bye(?: bye)?|farewell|so long|no more)\b[\s,]*(\S.*)$", re.I)
#: words between an ending and the name it ended ("quit *the* gym at Ironclad")
_LEAD_IN = frozenset(
    {"the", "a", "an", "my", "our", "his", "her", "their", "old", "at", "with", "on", "from"}
)


def _names_from(words: list[str], start: int) -> frozenset[str]:
    """The run of names starting at ``start``, past a few small words ("out of *Halcyon Media*")."""
    found: list[str] = []
    for w in words[start : start + _REACH]:
        name = bare(w)
        if (
            (w[:1].isupper() or w[:1].isdigit() or _typed_name(w))
            and name not in NOT_VALUES
            and not _DATE_PART.fullmatch(name)
        ):
            found.append(name)
        elif found or w.lower() not in _LEAD_IN:
            break
    return frozenset(found)


def _typed_name(word: str) -> bool:
    """A word typed in lower case that is a name all the same, where a value is due: one the lexicon does
    not know ("ditched pulsebox"), or a value of the inventory ("dropped vscode")."""
    low = word.lower()
    if not word.isalpha() or not word.islower() or len(word) < 3 or low in FUNCTION or low in _LEAD_IN:
        return False
    return not _known(low) or attributes.for_value(low) is not None


def _named_before(words: list[str], at: int) -> frozenset[str]:
    """The name an ending is said of: the last name just before its verb, not an owner's ("Gerald's old
    *Rufus* died") nor the speaker."""
    for w in reversed(words[max(0, at - 3) : at]):
        name = bare(w)
        if w.lower().replace("’", "'").endswith("'s") or name in NOT_VALUES or name in _speaker():
            continue
        if w[:1].isupper() and name not in FUNCTION and name not in OWN and name not in _others():
            return frozenset({name})
    return frozenset()


def is_request(text: str) -> bool:
    """Whether ``text`` asks the assistant something ("Can you …", "…?"): it states nothing."""
    return bool(_REQUEST.search(text))


def says_now(text: str) -> bool:
    """Whether ``text`` has a word for what holds now ("now", "these days", "instead")."""
    return bool(_NOW.search(text))


def told_past(text: str) -> bool:
    """Whether ``text`` tells what held before as such ("used to", "back when", "When the Pattersons were
    next door, …"), with no word that only sometimes does ("anymore": "no car anymore, it's the bike now")."""
    return bool(_TOLD_PAST.search(text))


def tells_history(text: str) -> bool:
    """Whether ``text`` tells what held before ("used to", "back when", "when I still", "the old one")."""
    return _told_before(text) or bool(_FORMER.search(text))


def _told_before(text: str) -> bool:
    return bool(_HISTORY.search(text)) or (bool(_DENIAL.match(text)) and _denies_only(text))


def _denies_only(text: str) -> bool:
    """Whether a sentence opening on a denial says nothing else that holds now: "Not Bramble, gave up on
    them months ago — Ferrybridge Dental now" denies one value and says which holds now, which is no
    history; "Not missing Greaves and that boiler at Albion Terrace one bit" is."""
    rest = without_clauses(text, lambda clause: bool(_DENIAL.match(clause)))
    if rest == text:
        return True
    return not _NOW.search(rest)


def about_someone_else(text: str) -> bool:
    """Whether ``text`` opens with someone other than the speaker ("Mum finally moved …", "User's brother
    took …", "Ana's new job", "He took …"), read from its first three words."""
    first = WORD.findall(text[:80])[:3]
    low = [w.lower().replace("’", "'") for w in first]
    plain = [bare(w) for w in first]
    for i, w in enumerate(low[:-1]):
        if (w in OWN or w.endswith("'s")) and attributes.relation_of_any_number(plain[i + 1]) is not None:
            return True  # "my brother", "User's sister"
    if _speaker() & set(plain):
        return False
    opening = _SENTENCE_END.split(text[:400])[0]
    if plain[:1] == ["it"] and _speaker() & {bare(w) for w in WORD.findall(opening)}:
        return False  # "it's been a month since I left": "it" is no one, the speaker is said after it
    if plain[:1] == ["it"] and _NOW.search(opening):
        return False  # "It's Harbourside Homes now": the thing spoken of, as it is now
    if _others() & set(plain) or any(attributes.relation_of_any_number(w) is not None for w in plain):
        return True
    if not first:
        return False
    if first[0].lower().replace("’", "'").endswith("'s"):
        name = re.sub(r"['’]s$", "", first[0])  # "Ana's new job"; not "German's on hold", a value
        return a_name(name) and attributes.for_value(name) is None
    # "Femi got …", not "Three weeks …" nor "Portuguese is paused" (a value), nor "Harcourt closed down" (a
    # thing said to have ended: the speaker's value)
    return (
        a_name(first[0])
        and attributes.for_value(first[0]) is None
        and any(_is_verb(w) for w in low[1:3])
        and plain[0] not in ended(text)
    )


def _is_verb(word: str) -> bool:
    """Whether the lexicon knows ``word`` as a verb ("got", "left", "is")."""
    forms = lexicon().getAllLemmas(word)
    return "VERB" in forms or "AUX" in forms


#: a reply's note of the question it answered, which the write path adds: the question's words, not the statement's
_REPLY_NOTE = re.compile(r"\s*\(in reply to [^()]*(?:\([^()]*\)[^()]*)*\)\s*", re.I)


def values(text: str, attribute: str) -> frozenset[str]:
    """The names and numbers ``text`` holds past its first word, and the inventory's values of ``attribute``
    (a reply's note of the question it answered left out)."""
    return _values(WORD.findall(sentence_case(without_reply_note(text[:600])[:400])), attribute)


def sentence_case(text: str) -> str:
    """``text`` with a word that opens a sentence past the first in lower case when it is a word of the
    language ("... I shall send it. Thank you"): its capital is the sentence's, not a name's. A word the
    lexicon lacks keeps it, and so does one written with a capital inside a sentence too, or a noun or
    adjective opening a run of capitalised words ("Pearl District Dental", "New Look"; not "Also Cigna")."""
    inside = {m.group(1) for m in _INSIDE.finditer(text)}

    def lower(m: re.Match[str]) -> str:
        word = m.group(1)
        if word in inside or not _known(word.lower()) or m.group(2) and _may_name(word.lower()):
            return m.group(0)
        return word.lower() + m.group(0)[len(word) :]

    return _OPENER.sub(lower, text)


@lru_cache(maxsize=4096)
def _may_name(word: str) -> bool:
    """Whether the lexicon knows ``word`` as a noun or an adjective, words a name is made of."""
    return bool({"NOUN", "ADJ", "PROPN"} & set(lexicon().getAllLemmas(word)))


#: a capitalised word opening a sentence past the first (and whether a capitalised word follows it)
_OPENER = re.compile(r"(?<=[.!?]\s)([A-Z][a-z'’]+)(\s+[A-Z])?")
#: a capitalised word inside a sentence
_INSIDE = re.compile(r"(?<![.!?]\s)(?<=[\w,;:]\s)([A-Z][a-z'’]+)")


def without_reply_note(text: str) -> str:
    """``text`` without a reply's note of the question it answered ("… (in reply to User: …)")."""
    return _REPLY_NOTE.sub(" ", text).strip()


def field(text: str) -> str | None:
    """The field a labelled line gives ("Policy number" of "Policy number: HOM-44817263", "Subject" of
    "Subject: Notice of Termination"), None for a line with no label."""
    label = _LABEL.match(text)
    return label.group(0).strip(" \t:*-#>") if label else None


def named(text: str) -> frozenset[str]:
    """The single-valued attributes ``text`` names by a noun of theirs ("the Payments team": team)."""
    lowered = [w.lower() for w in WORD.findall(text[:400])]
    return frozenset(named_attributes(lowered, noun_spans(lowered)))
