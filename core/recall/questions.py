"""What a question asks about: which attribute, of whom, or which thing the inventory has no name for.

Recall reads a question with the same inventory (core/attributes.py) and lexicon as a statement
(core/recall/statements.py): the attributes a question names by a frame's verb, a noun or a value
("where do I work?": the employer), the person it asks about when that is not the asker ("where does my
brother Dario work?", "what is Gerald's dog called?"), and, when no attribute fits, the nouns it asks
about ("who is my landlord?"). core/recall/asked.py puts the statements of what is asked first.
"""

from __future__ import annotations

import re
from functools import lru_cache

from veramem_desktop.core import attributes
from veramem_desktop.core.recall.query import NOW
from veramem_desktop.core.recall.statements import (
    BE_FORMS,
    DETERMINERS,
    NOT_VALUES,
    OWN,
    WORD,
    a_name,
    bare,
    capitalised,
    frames_by_head,
    lemmas,
    named_attributes,
    noun_extents,
    noun_spans,
    value_attribute,
)
from veramem_desktop.core.text.lexicon import lexicon
from veramem_desktop.core.text.terms import STOPWORDS


@lru_cache(maxsize=2048)
def asked(question: str) -> frozenset[str]:
    """The single-valued attributes a question asks about, by the inventory's words in it: a frame's verb
    with its particle ("where do I work?": works_at, occupation; an ending's frame asks nothing: "do I walk
    the dog?" is no "walk out"), a noun ("who is my manager?": relation:boss) or a value. The words of a
    prepositional phrase say where or for what ("which internet provider do I have at home?", "which team
    am I on at work?"): they ask only when the rest of the question asks nothing ("what does Siân do for
    work?")."""
    lowered = [w.lower() for w in WORD.findall(question[:400])]
    compound = _compounds(lowered)  # "phone company": asked by its meaning (core/recall/meaning.py)
    found = _asked_by(lowered, _adjunct_words(lowered) | compound, question) or _asked_by(
        lowered, compound, question
    )
    return frozenset(a for a in found - {"name"} if _of_the_kind_asked(question, a))


def _asked_by(lowered: list[str], skipped: set[int], question: str) -> set[str]:
    """The attributes the words of a question ask, less those at the positions ``skipped``."""
    spans = [(at, name) for at, name in noun_spans(lowered) if at not in skipped]
    # a word that names an attribute as a noun asks that attribute, not the one it is a value of: "who's my
    # dentist?" asks the dentist, never whether the asker's occupation is dentist
    nouns = {name for _, name in spans}
    found = named_attributes([w for i, w in enumerate(lowered) if i not in skipped], spans) - {
        a for at, _ in spans if (a := value_attribute(lowered[at])) is not None and a not in nouns
    }
    heads = frames_by_head()
    said = {form for w in lowered for form in lemmas(w)}
    manner = _MANNER.match(question) is not None
    found.update(
        attr.name
        for i, w in enumerate(lowered)
        # a word owned is a noun ("when is my rent due?" asks no renting)
        if w not in _QUESTION_VERBS and not (i > 0 and lowered[i - 1] in _OWNERS) and i not in skipped
        for lemma in lemmas(w)
        for attr, frame in heads.get(lemma, ())
        if not frame.weak
        and not frame.ends
        and set(frame.verb.split()[1:]) <= set(lowered)
        and (frame.obj is None or frame.obj in said)  # "do a degree in", never any "doing"
        # "how" asks the way a thing is done: a frame's value it asks is one said "by" ("commute by")
        and (not manner or frame.prep == "by")
    )
    return found - {"name"}


def _compounds(lowered: list[str]) -> set[int]:
    """Where a noun of an attribute stands before a noun of another, which heads what is asked ("which book
    club …": a club, not what the asker reads; "mobile network": the network, not the phone); and where
    that head is the employer's noun ("phone company", "insurance company"): the company that provides that
    thing, neither the phone nor where the asker works, one thing the inventory has no noun for, asked by
    its meaning. A noun before a noun of no attribute says which one is asked ("broadband provider")."""
    extents = noun_extents(lowered)
    starts = {start: name for start, _, name in extents}
    return {
        i
        for start, end, name in extents
        if (head := starts.get(end + 1)) is not None and head != name
        # before the employer's noun both go: the company of that thing is asked by its meaning
        for i in (range(start, end + 2) if head == "works_at" else range(start, end + 1))
    }


#: prepositions opening a phrase that says where or for what a thing asked is ("… at home", "… for work")
_ADJUNCT_PREPOSITIONS = frozenset({"at", "in", "on", "for", "from", "near", "around", "with", "during", "by"})


def _adjunct_words(lowered: list[str]) -> set[int]:
    """Where the words of a prepositional phrase's noun phrase are ("at the start", "for hay fever"): from
    after the preposition and its determiners while the words are nouns, adjectives or unknown."""
    found: set[int] = set()
    for i, w in enumerate(lowered):
        if w not in _ADJUNCT_PREPOSITIONS:
            continue
        j = i + 1
        while j < len(lowered) and lowered[j] in DETERMINERS:
            j += 1
        while j < len(lowered) and lowered[j] not in _NOT_ASKED and _nominal(lowered[j]):
            found.add(j)
            j += 1
    return found


def _nominal(word: str) -> bool:
    """Whether ``word`` may be part of a noun phrase: a noun or adjective by the lexicon, or a word it lacks."""
    forms = lexicon().getAllLemmas(word)
    return not forms or bool({"NOUN", "ADJ", "PROPN"} & set(forms))


#: a question asking where
_WHERE = re.compile(r"\s*where\b", re.I)
#: a question asking who (or whom)
_WHO = re.compile(r"\s*(?:who|whom)\b", re.I)
#: a question asking how a thing is done ("how do I get to work?"), not how much, long or often
_MANNER = re.compile(
    r"\s*how\s+(?:do|does|did|am|is|are|was|were|have|has|had|can|could|will|would|should)\b", re.I
)


def asks_someone(question: str) -> bool:
    """Whether the question asks who: its answer is a person or an organisation."""
    return _WHO.match(question) is not None


def _of_the_kind_asked(question: str, name: str) -> bool:
    """Whether ``name``'s values are of the kind the question's first word asks for, by the entity labels
    the inventory gives them: "where" asks a place, never someone ("lives_with": a flatmate); "who" asks
    someone, a person or an organisation, never a role or a city ("who's my head chef?" asks no occupation,
    "who lives next door?" no home)."""
    attr = attributes.by_name(name)
    if attr is None:
        return True
    labels = set(attr.entities)
    if _WHERE.match(question):
        return labels != {"PERSON"}
    if _WHO.match(question):
        return bool(labels & {"PERSON", "ORG"})
    return True


#: verbs a question is built with, which ask about no attribute ("what do I …", "where did I go")
_QUESTION_VERBS = frozenset(
    {"do", "does", "did", "have", "has", "had", "get", "got", "go", "went", "am", "is", "are"}
)


def person_asked(question: str) -> frozenset[str]:
    """The words naming the person a question asks about when it is not the asker: a name ("where does
    Femi work?") and a relation said as the asker's ("my brother Dario", "my mum"), lower case; empty
    for a question about the asker."""
    words = WORD.findall(question[:400])
    # a question typed all in lower case gives no capitals to tell a name by: a word the lexicon does not
    # know, where a question puts whom it asks about ("does aisha teach"), is one
    uncased = not any(c.isupper() for c in re.sub(r"\bI\b", "", question))
    found: set[str] = set()
    for i, w in enumerate(words):
        low = bare(w)
        name = re.sub(r"['’]s$", "", w)
        if i > 0 and words[i - 1].lower() in OWN and _relation(low) is not None:
            before = words[i - 2].lower().replace("’", "'") if i > 1 else ""
            # "who is my partner?", "who's my partner?": the question asks the relation itself
            asked_for = (
                before in BE_FORMS or before.endswith("'s") or bool(_WH_IS.fullmatch(before))
            ) and not (w.lower().endswith("'s"))
            if not asked_for:  # "who is my partner?" asks the partner; "where does my mum live?" asks of her
                found.add(low)
        elif (
            i > 0
            # inside a question, a capital is a name's though the lexicon knows the word ("does Ken go")
            and (capitalised(name) or (uncased and a_name(name.capitalize())))
            and low not in _QUESTION_NAMES
            and low not in STOPWORDS  # "our landlord at the end of 2021": a word of no content is no one
            and words[i - 1].lower() not in DETERMINERS  # "the cafe's electric": a thing, no one's name
            and _subject_at(words, i)
            and not _with_the_asker(words, i)
        ):
            found.add(low)
    return frozenset(found)


#: a question word with "is" typed without its apostrophe ("whos my manager", "whats my pb")
_WH_IS = re.compile(r"(?:who|what|where|which|how)s")


#: the verbs a question puts before its subject ("where does Femi work?", "where was Zoe in May?")
_AUXILIARIES = frozenset(
    ["do", "does", "did", "is", "was", "are", "were", "has", "have", "had", "will", "would", "can", "could"]
)


def _subject_at(words: list[str], i: int) -> bool:
    """Whether the name at ``i`` is whom the question asks about: right after its verb ("where does Femi
    work?"), owning what is asked ("Gerald's dog"), or named with a relation ("my brother Dario"); not a
    place it names ("which area of London")."""
    w = words[i].lower().replace("’", "'")
    before = words[i - 1].lower()
    return w.endswith("'s") or before in _AUXILIARIES or _relation(bare(before)) is not None


def _with_the_asker(words: list[str], i: int) -> bool:
    """Whether the name at ``i`` is joined to the asker by "and" ("where do Ken and I live?", "me and
    Ana"): the question asks of the household, the asker's own."""
    after = [w.lower() for w in words[i + 1 : i + 3]]
    before = [w.lower() for w in words[max(0, i - 2) : i]]
    return after in (["and", "i"], ["and", "me"]) or before in (["i", "and"], ["me", "and"])


#: capitalised words of a question that name no one ("I", a month)
_QUESTION_NAMES = frozenset({"i", "user"}) | NOT_VALUES


def mentions(text: str, person: frozenset[str]) -> bool:
    """Whether ``text`` speaks of the person named by ``person`` (person_asked's words): the name itself, or
    a word of the same relation ("Mum" for "my mother")."""
    roles = {_relation(w) for w in person} - {None}
    for w in WORD.findall(text[:400]):
        low = bare(w)
        if low in person or (roles and _relation(low) in roles):
            return True
    return False


def names_given(text: str, person: frozenset[str]) -> set[str]:
    """The other words ``text`` calls the person ``person`` names by, lower case: the name it gives a
    relation of theirs, just after it ("brother Sam", "sister, Ana") or just before it ("Sam, my brother"),
    and the relation it gives a name of theirs ("my sister ana" for Ana)."""
    found: set[str] = set()
    words = re.findall(r"[^\W_]+(?:['’]s)?", text)
    for i, w in enumerate(words):
        near = words[i + 1 : i + 2] + (
            [words[i - 2]] if i >= 2 and words[i - 1].casefold().replace("’", "'") in OWN else []
        )
        if w.casefold() in person:
            found.update(bare(n) for n in near if a_name(re.sub(r"['’]s$", "", n)))
        elif _relation(w.casefold()) is not None and {bare(n) for n in near} & person:
            found.add(w.casefold())
    return found


def _relation(word: str) -> str | None:
    """The relation a word names, in the singular too ("parents", "sisters")."""
    return attributes.relation_of_any_number(word)


def relation_of(word: str) -> str | None:
    """The relation ``word`` names ("mum": mother), or None."""
    return _relation(word)


#: words of a question that name no thing asked about
_NOT_ASKED_TEXT = """what which who whom whose where when why how do does did is are was were am be been have has had
    my our your his her their its the a an of for to in on at with now currently these days today still ever i we you
    me us anything something everything nothing
    name called kind sort thing things"""
_NOT_ASKED = frozenset(_NOT_ASKED_TEXT.split())


def asked_nouns(question: str) -> frozenset[str]:
    """The nouns a first-person question asks about when the inventory names no attribute in it ("who is
    my landlord?": landlord), as lemmas; the word after "I"/"we" is the question's verb, not a noun."""
    words = [w.lower() for w in WORD.findall(NOW.sub(" ", question[:400]))]  # "at the moment" says when
    circumstance = _adjunct_words(words)
    compound = _compounds(words)
    found: set[str] = set()
    adjuncts: set[str] = set()  # nouns said in a prepositional phrase: asked only when no other noun is
    for i, w in enumerate(words):
        if i in compound:  # one noun of two words ("phone company"), which no attribute names
            if i + 1 in compound:
                found.add(f"{w} {words[i + 1]}")
            continue
        if w in _NOT_ASKED or (i > 0 and words[i - 1] in ("i", "we", "you")) or w[:1].isdigit():
            continue
        into = adjuncts if i in circumstance else found
        forms = lexicon().getAllLemmas(w)
        if "NOUN" in forms:
            into.update(forms["NOUN"])
        elif i > 0 and words[i - 1] in _ASKING and w.isalpha() and _said_as_noun(forms, words[i + 1 : i + 2]):
            # a word the lexicon does not know, owned or asked for: a noun all the same ("our childminder",
            # "which antihistamine"); so is an adjective owned with no noun after it ("who's our electric with")
            into.add(w)
    return frozenset(found or adjuncts)


def _said_as_noun(forms: dict[str, tuple[str, ...]], after: list[str]) -> bool:
    """Whether an owned or asked-for word that is no noun by the lexicon (``forms``) stands for one: a word
    it does not know, or an adjective with no noun after it ("our electric with", not "our new car")."""
    if not forms:
        return True
    return set(forms) == {"ADJ"} and not (after and "NOUN" in lexicon().getAllLemmas(after[0]))


#: the words of a question in the asker's first person
_FIRST_PERSON = re.compile(r"\bI\b|\b(?:me|my|mine|myself|we|us|our)\b", re.IGNORECASE)


def in_first_person(question: str) -> bool:
    """Whether ``question`` asks in the asker's first person ("where do I live?", "who's our vet?")."""
    return _FIRST_PERSON.search(question) is not None


def asked_phrase(question: str) -> str:
    """The words of ``question`` saying the nouns it asks about, in its order ("what blood thinner is Dad on
    now?": "blood thinner"); empty when it asks none."""
    nouns = asked_nouns(question)
    parts = frozenset(part for noun in nouns for part in noun.split())  # a compound's words ("phone company")
    said = [w for w in WORD.findall(question[:400]) if lemmas(bare(w)) & (nouns | parts)]
    return " ".join(said)


#: words owning the noun after them in a question
_OWNERS = frozenset({"my", "our", "the", "his", "her", "their", "your"})
#: words before a noun a question asks for ("which antihistamine …")
_ASKING = _OWNERS | {"what", "which"}


def says_noun(text: str, nouns: frozenset[str]) -> bool:
    """Whether ``text`` says one of ``nouns`` (in any of its forms, "landlord's", "notes")."""
    return any(lemmas(bare(w)) & nouns for w in WORD.findall(text[:400]))


def attributes_of_nouns(nouns: frozenset[str]) -> frozenset[str]:
    """The attributes, single- or multi-valued, that ``nouns`` name ("language": languages_learning)."""
    found = (attributes.for_noun(n) or attributes.by_name(n) for n in nouns)
    return frozenset(a.name for a in found if a is not None)


def gives_value_of(text: str, names: frozenset[str]) -> bool:
    """Whether ``text`` says a value that gives one of the attributes ``names`` away ("Korean" a language
    learnt, "kittens" a pet), in any of its forms."""
    if not names:
        return False
    for w in WORD.findall(text[:400]):
        for form in lemmas(bare(w)):
            attr = attributes.for_value(form)
            if attr is not None and attr.name in names:
                return True
    return False
