"""Subject / predicate / value of a statement, from its parse and the inventory of attributes.

Each clause of a sentence is parsed (:mod:`.parse`) into who, which verb, what and how it is
said; the verb and its preposition are looked up among the inventory's frames, and the nouns
and values among its nouns and values (core/attributes.py). So "We finally moved to
Amsterdam!", "Joined Fietsbank last Monday", "handed in my notice", "the new boss is Priya" and
"my brother took a job at Stripe" are keyed by the same mechanism as "I live in Berlin":

- the subject: "I", "we" and a sentence said without one are the speaker (the user); "my
  brother" or a named person is that person ("user's brother", "Ana"), never the user;
- the predicate: the frame that fits the verb, its preposition and its value best (a noun, a
  value or an entity label of the attribute confirms it; a verb of many uses needs one); a
  copula reads "my X is Y", "Y is my X" and "I'm a nurse" through the nouns and values;
- how it is said: a question, a condition, a plan, a modal, or a past-tense state ("when I
  still used Vim", "I used to live in Berlin") states nothing current and gives no key; a
  change said in the past ("moved", "joined") is current from the message's time; a frame
  that ends a value ("quit", "hand in my notice", "break up with") is read as an end.

A user's first-person statement gives a key about the user. So does an assistant's or a tool's
second-person statement ("You live in Berlin"): it is read with "you" as "I" and the speaker's own
"I" set aside, so the assistant talking about itself never gives a key about the user.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from veramem_desktop.core import attributes
from veramem_desktop.core.attribute_kinds import BOUNDED_VISITS
from veramem_desktop.core.attributes import Attribute, Frame
from veramem_desktop.core.recall import statements
from veramem_desktop.models.llm.rules.parse import FIGURES, Clause, Parsed, Phrase, parse
from veramem_desktop.models.llm.rules.text import stem

Key = tuple[str | None, str | None, str | None]
NO_KEY: Key = (None, None, None)


@dataclass(frozen=True)
class Keyed:
    """A statement's key, and whether it says the value stopped holding ("I quit the climbing gym").
    ``predicate`` None: no frame fits the verb, and the write path picks the attribute whose description
    is nearest the statement's meaning, or none (core/write/derive.py)."""

    subject: str
    predicate: str | None
    value: str | None
    ends: bool = False

    @property
    def key(self) -> Key:
        return self.subject, self.predicate, self.value


def _relation_words() -> str:
    words = {w for w in _RELATION_NOUNS}
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


_RELATION_NOUNS = [
    w
    for w in [
        "mother",
        "mom",
        "mum",
        "father",
        "dad",
        "sister",
        "brother",
        "wife",
        "husband",
        "partner",
        "boyfriend",
        "girlfriend",
        "fiance",
        "fiancee",
        "fiancé",
        "fiancée",
        "spouse",
        "son",
        "daughter",
        "kid",
        "child",
        "cousin",
        "aunt",
        "uncle",
        "grandma",
        "grandmother",
        "grandpa",
        "grandfather",
        "niece",
        "nephew",
        "friend",
        "roommate",
        "flatmate",
        "boss",
        "colleague",
        "coworker",
        "co-worker",
        "neighbour",
        "neighbor",
    ]
    if attributes.relation(w) is not None
] + ["best friend"]
#: the words for relatives, as a regular expression (the wording step finds "my sister Ana" with it)
RELATIONS = _relation_words()
# Capitalised words after "my sister" that are not her name.
_NOT_NAMES_TEXT = """
    I I'm I've I'd I'll The A An And But So Or It It's He She They We You Monday Tuesday Wednesday
    Thursday Friday Saturday Sunday Mom Dad
"""
NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())

_SPEAKER = frozenset({"i", "we", "me", "us"})
#: words for a parent or grandparent that name the speaker's own without "my" ("mum finally moved out of Swindon")
PARENTS = frozenset(
    {
        "mum",
        "mom",
        "mummy",
        "mommy",
        "dad",
        "daddy",
        "mama",
        "papa",
        "gran",
        "granny",
        "nan",
        "nana",
        "grandma",
        "grandpa",
        "granddad",
        "grandad",
        "mam",
    }
)
_PRONOUNS_TEXT = """
    it that this them him her you us those these everything something one which what who whom whatever
"""
_PRONOUNS = frozenset(_PRONOUNS_TEXT.split())
#: how a statement's tense says it is not current: plans, conditions and the past of a state
_NOT_NOW = frozenset({"modal", "future"})
_PAST = frozenset({"past", "pluperfect", "habitual_past"})
#: verbs that carry another verb's statement: "started working at", "stopped learning", "love to paint"
_BEGIN = frozenset({"start", "begin", "keep", "continue", "decide", "get"})
_END = frozenset({"stop", "quit", "give up", "cease"})
_LIKE = {"like": "likes", "love": "likes", "enjoy": "likes", "adore": "likes"}
_DISLIKE = {"hate": "dislikes", "dislike": "dislikes", "detest": "dislikes"}
_FAVOURITE = re.compile(r"^(?:absolute |all-time )?favou?rite\s+", re.IGNORECASE)
_CHANGE_WORDS = re.compile(r"^(?:new|current|present|latest|usual)\s+", re.IGNORECASE)
#: the same words leading a value as said: lower case only, so a name that begins with one ("New York",
#: "New Balance") keeps it
_CHANGE_WORDS_SAID = re.compile(r"^(?:new|current|present|latest|usual)\s+")


def read(sentence: str, person: str | None = None) -> Keyed | None:
    """The key of a statement about the speaker (or about someone they name), None when it has none."""
    found = read_all(sentence, person)
    return found[0] if found else None


def read_all(sentence: str, person: str | None = None, topic: str | None = None) -> list[Keyed]:
    """Every key a statement gives, the main one first: one clause may state several attributes ("I'm a
    data analyst at Copperleaf" is the occupation and the employer), and joined clauses each their own
    ("I live in Oslo and work at Fjordly"). ``person``: whom "he", "she" or "they" refers to, the
    person named last before this sentence in the same message; within the sentence, a pronoun is the
    person an earlier clause is about. ``topic``: whom the sentence before was about, when that was
    another person (:func:`topic_of`); a sentence said without a subject goes on about them ("my parents
    sold their place. bought a cottage in Cromer"), so it gives no key of the speaker's. One key per
    person and attribute."""
    parsed = parse(sentence.replace("\u2019", "'"))
    if topic is not None:
        parsed = _continued(parsed, topic)
    out: list[Keyed] = []
    for clause in parsed.clauses:
        if not (clause.hypothetical or clause.background) and (ended := _ended_relative(clause)):
            out.append(ended)
    named = _named_relative(parsed)
    if named is not None:
        out.append(named)
    # "my mum moved out of Swindon, she's in Whitby now": a pronoun is the person another clause names
    referent = next(
        (
            who
            for c in parsed.clauses
            if c.subject is not None
            and c.subject.head not in _PRONOUNS_OF_PEOPLE
            and (who := _who(c.subject) or _possessor(c.subject)) not in (None, "user")
        ),
        person,
    )
    for clause in parsed.clauses:
        clause = _resolved(clause, referent)
        found = _clause(clause, parsed) or _gone(clause, sentence)
        if found is not None:
            out.append(found)
            out.extend(_also(clause, found))
    keyed = [_read_whole(k, sentence) for k in _one_each(out or _without_a_frame(parsed, referent))]
    return _one_each(keyed + [r for k in keyed for r in _replaced(k, parsed)])


def _read_whole(found: Keyed, sentence: str) -> Keyed:
    """``found`` with its value read whole where the parse cut a value of the inventory short: "Apple" said
    as "Apple TV+" is the streaming service "Apple TV+" (the words after it, up to two, that make with it
    one of the attribute's own values)."""
    attr = attributes.by_name(found.predicate) if found.predicate and found.value else None
    if attr is None or not attr.values or found.value is None:
        return found
    said, own = found.value.split(), {v.lower() for v in attr.values}
    if found.value.lower() not in own:
        # "hyperoptic btw": a value of the attribute's own, then words in lower case that are no part of it
        for n in range(len(said) - 1, 0, -1):
            if " ".join(said[:n]).lower() in own and all(w.islower() for w in said[n:]):
                return replace(found, value=" ".join(said[:n]))
    at = re.search(rf"(?<!\w){re.escape(found.value)}((?:\s+[^\s,.;:!?()]+){{1,2}})", sentence, re.IGNORECASE)
    if at is None:
        return found
    words = at.group(1).split()
    for n in (len(words), 1):
        whole = " ".join([at.group(0)[: len(found.value)], *words[:n]])
        if attributes.for_value(whole) is attr and " ".join(whole.lower().split()) in attr.values:
            return replace(found, value=whole)
    return found


def _without_a_frame(parsed: Parsed, referent: str | None) -> list[Keyed]:
    """The key of a statement no clause's frame fits: a thing of the attribute said new or mine, time
    spent at or into something, a value said to hold now; else a name said through a verb no frame has,
    its attribute left to the statement's meaning (core/write/by_meaning.py)."""
    for read_it in (_implied, _spent, _value_now):
        found = read_it(parsed)
        if found is not None:
            return [found]
    valued = [v for c in parsed.clauses if (v := _valued(_resolved(c, referent))) is not None]
    return valued or [u for c in parsed.clauses if (u := _unframed(_resolved(c, referent))) is not None]


def _valued(c: Clause) -> Keyed | None:
    """The speaker's change whose object gives its attribute away by itself, when no frame of the verb
    fits it ("picked up a second-hand cello", "rented a cello", "bought a Pixel 8"): the value, keyed to
    the attribute it is a value of, whatever the verb. Only a change done (past or perfect): a routine
    ("I walk the dog on Sundays"), a state ("I have a dog named after …") or anything said not to hold
    names a thing, not a new value."""
    if c.hypothetical or c.background or c.negated or c.verb in ("be", "have"):
        return None
    if c.tense not in ("past", "perfect") or _who(c.subject) not in (None, "user"):
        return None
    if any(f.ends and f.prep is None and f.verb == c.verb for _, f in attributes.endings()) or any(
        a.name in _LIKED for a, _ in _frames(c.verb)
    ):
        return None  # "sold the cello", "ditched vscode", "hate the cello": an ending or a liking
    if c.obj is not None and _a_person(c.obj):
        return None  # "moved Dad into a care home": a person was moved, the home is theirs
    # a named thing moved somewhere ("moved Grandad into a care home"): where it went is no value of the speaker's
    named = c.obj is not None and c.obj.proper
    for phrase in (c.obj, *(p for prep, p in c.preps if prep in ("to", "into") and not named)):
        if phrase is None or phrase.owner is not None:
            continue
        # the value is the thing itself ("a second-hand cello"), not a thing of it ("a cello concerto")
        owner = attributes.for_value(phrase.head) or (
            attributes.for_value(phrase.text) if phrase.proper else None
        )
        # a job named as what the deed was done to is people ("mentored 2 interns", "hired a cleaner"), never
        # the speaker's own occupation ("promoted to area manager" is theirs)
        if (
            owner is not None
            and owner.name not in _LIKED
            and not (owner.name == "occupation" and phrase is c.obj)
        ):
            return Keyed("user", owner.name, _text(phrase, owner) or phrase.text)
    return None


#: whom a sentence is about when it is another person no name or relation says ("my parents", "they")
SOMEONE = "someone else"


def topic_of(sentence: str) -> str | None:
    """Whom a sentence's main clause is about when it is not the speaker: a named person or a relative
    ("Dario", "user's mother"), :data:`SOMEONE` for another person said otherwise ("my parents", "the
    kids", "they"); None when it is the speaker, or a thing."""
    parsed = parse(sentence.replace("\u2019", "'"))
    main = parsed.clauses[0] if parsed.clauses else None
    if main is None or main.subject is None or main.implied_subject:
        return None
    who, s = _who(main.subject), main.subject
    if who == "user":
        return None
    if who is not None and (who.startswith("user's ") or s.name or s.label == "PERSON"):
        return who  # a person, never a thing with a name ("Reorg announced …")
    if s.head in _PRONOUNS_OF_PEOPLE or (s.owner in ("my", "our") and s.head in _PEOPLE):
        return SOMEONE
    return None


#: words for people that no relation of the inventory names one of
_PEOPLE = frozenset(
    {"parents", "parent", "kids", "children", "family", "folks", "friends", "grandparents", "in-laws"}
)


def _continued(parsed: Parsed, topic: str) -> Parsed:
    """The parse with a clause said without a subject read as about ``topic``; dropped when no name or
    relation says who that is."""
    out = []
    for c in parsed.clauses:
        if not c.implied_subject and c.subject is not None:
            out.append(c)
        elif topic != SOMEONE:
            head = topic.lower()
            out.append(replace(c, subject=Phrase(text=topic, head=head, proper=True), implied_subject=False))
    return replace(parsed, clauses=tuple(out))


#: pronouns that stand for a person named before ("she's in Whitby now")
_PRONOUNS_OF_PEOPLE = frozenset({"he", "she", "they", "him", "her", "them"})


#: what a thing that stopped being one's own "is" ("Emacs is gone", "Fairhaven is done")
_GONE = frozenset({"gone", "over", "done", "history", "finished"})
#: what a business that stopped being anyone's does ("Harcourt closed down")
_CLOSED = frozenset({"close down", "close", "shut down", "fold", "go under", "go bust"})


def _gone(c: Clause, sentence: str) -> Keyed | None:
    """A named thing said to have stopped, with no frame to say which attribute: "Emacs is gone",
    "Fairhaven is done", "Harcourt closed down". An ending of the speaker's value with that name,
    of the attribute the name gives away or of none named: the write path ends the speaker's current
    memory whose value is that name, and keeps the statement unkeyed when there is none
    (core/write/ends.py)."""
    s = c.subject
    if s is None or c.hypothetical or c.background or c.negated or c.tense in _NOT_NOW or not _name(s):
        return None
    if s.owner is not None or attributes.relation(s.head) is not None or s.head in _PRONOUNS:
        return None
    said = c.verb.removeprefix("be ")
    if c.verb == "be":
        said = c.complement.head if c.complement is not None else ""
    if said not in _GONE and c.verb not in _CLOSED:
        return None
    # the name said right before its verb (the small pipeline may take another name of the sentence for
    # the subject: "Neovim for code, Emacs is gone"), and nothing it is done with ("Ana is done with …")
    right_before = (
        rf"\b{re.escape(s.text)}(?:'s|\s+(?:is|was|has|had|just|finally|been))*\s+{said.split()[0][:4]}"
    )
    if c.preps or not re.search(right_before, sentence):
        return None
    attr = _owned_by(s)
    return Keyed("user", attr.name if attr is not None else None, s.text, ends=True)


def _possessor(phrase: Phrase) -> str | None:
    """A person named as the owner of a subject ("Lucía's PhD done"), by name; None otherwise."""
    owner = phrase.owner
    if owner is None or " " in owner or not owner[:1].isupper() or owner in NOT_NAMES:
        return None
    return owner


def _resolved(c: Clause, person: str | None) -> Clause:
    """The clause with a pronoun subject read as ``person``, when one was named before."""
    s = c.subject
    if person is None or s is None or s.head not in _PRONOUNS_OF_PEOPLE or person == "user":
        return c
    return replace(c, subject=Phrase(text=person, head=person.lower(), proper=True, label="PERSON"))


def _label(phrase: Phrase, text: str) -> str | None:
    """The entity label of ``text`` said inside ``phrase``."""
    return next((label for said, label in phrase.entities if said == text), None)


def _one_each(found: list[Keyed]) -> list[Keyed]:
    """The keys with one per (person, attribute), the first said kept; beside a value ended, one value
    taken up ("gave up on Italian, switched to Japanese": both)."""
    seen: set[tuple[str, str | None, bool]] = set()
    taken: dict[tuple[str, str | None], str | None] = {}
    out = []
    for k in found:
        if (k.subject, k.predicate, k.ends) in seen:
            continue
        if (k.subject, k.predicate, False) in seen and not (
            k.ends and k.value and taken[(k.subject, k.predicate)] not in (None, k.value)
        ):
            continue  # an ending said after the value taken up, of no other value ("switched from X to Y": X)
        seen.add((k.subject, k.predicate, k.ends))
        if not k.ends:
            taken[(k.subject, k.predicate)] = k.value
        out.append(k)
    return out


def _also(c: Clause, found: Keyed) -> list[Keyed]:
    """The attributes a clause states beside its main one: a role said with where it is held ("a data
    analyst at Copperleaf", "as a buyer at Ember") is the occupation and the employer, the organisation
    being of an employer's kind (its entity label, or a name labelled a place or nothing: a role is held at
    an organisation) and said with "at" or "for"."""
    if found.ends:
        return _taken_instead(c, found)
    left = _left_for(c, found)
    if found.predicate not in ("occupation", "works_at"):
        return left
    employer = attributes.by_name("works_at")
    assert employer is not None
    holder = c.complement if c.complement is not None else c.obj
    said = [(prep, p) for prep, p in c.preps]
    if holder is not None:
        said += [
            (prep, Phrase(text=o, head=o.split()[-1].lower(), label=_label(holder, o)))
            for prep, o in holder.preps
        ]
    where = [p for prep, p in said if prep in ("at", "for", "with")]
    out = []
    if found.predicate == "occupation":
        # a role is held at an organisation: a name said there is one, whatever place or nothing the small
        # model labels it ("at Zalando" a GPE, "at St Mary's" a facility)
        org = next(
            (
                p
                for p in where
                if p.label in employer.entities or (p.label in _HELD_AT and p.text[:1].isupper())
            ),
            None,
        )
        if org is not None:
            out.append(Keyed(found.subject, "works_at", org.text))
    else:
        role = next((p for prep, p in said if prep == "as"), None)
        if role is not None and (attributes.for_value(role.head) or attributes.for_value(role.text)):
            out.append(Keyed(found.subject, "occupation", role.text))
    return out + left


def _replaced(found: Keyed, parsed: Parsed) -> list[Keyed]:
    """The speaker's other values of a single-valued attribute said beside its value now, each a value of
    the inventory's own ("switched to Hyperoptic after 2 years of Virgin Media lagging", "on Octopus now,
    British Gas were useless"): one value holds at a time, so those are what it replaced, ended."""
    if found.predicate is None or found.value is None or found.ends or found.subject != "user":
        return []
    words = [w for w in parsed.words if w[:1].isalnum()]
    return [
        Keyed("user", found.predicate, v, ends=True)
        for v in attributes.values_beside(found.predicate, words, found.value)
    ]


def _left_for(c: Clause, taken: Keyed) -> list[Keyed]:
    """ "Switched from Disney+ to Apple TV+": what a new value was taken up instead of, said by an ending
    frame's phrase (:func:`_dropped`), is that attribute's value ended, when it is one of its own."""
    if taken.predicate is None or taken.subject != "user" or c.negated:
        return []
    attr = attributes.by_name(taken.predicate)
    left = _dropped(c) if c.obj is None else None
    if attr is None or left is None or left.text == taken.value or not _of_attribute(left, attr):
        return []
    return [Keyed("user", attr.name, left.text, ends=True)]


def _taken_instead(c: Clause, ended: Keyed) -> list[Keyed]:
    """ "Swapped the violin for the cello", "ditched vscode for neovim": what a value was dropped for is
    the attribute's new value, when it is one of that attribute's (a value of it, or a name)."""
    if ended.predicate is None or ended.subject != "user":
        return []
    attr = attributes.by_name(ended.predicate)
    # "X for Y"; after "from X", "to Y" ("switched from Disney+ to Apple TV+")
    took = ("for", "to") if any(prep == "from" and p.text == ended.value for prep, p in c.preps) else ("for",)
    instead = next((p for prep, p in c.preps if prep in took), None)
    if instead is None and c.obj is not None:
        said = next((o for prep, o in c.obj.preps if prep == "for"), None)
        instead = Phrase(text=said, head=said.split()[-1].lower()) if said else None
    if attr is None or instead is None or not _of_attribute(instead, attr):
        return []  # "ditched the car for the bus": no value of the car's
    text = _text(instead, attr)
    return [Keyed("user", attr.name, text)] if text else []


def _of_attribute(phrase: Phrase, attr: Attribute) -> bool:
    """Whether ``phrase`` may be a value of ``attr``: one the inventory gives it, or a name no attribute
    claims; never a time or an amount."""
    if phrase.label in _NOT_VALUES:
        return False
    owner = _owned_by(phrase)
    return owner is attr or (owner is None and _name(phrase))


#: the labels the small model gives an organisation a role is held at, besides its own ("at Zalando": GPE)
_HELD_AT = frozenset({None, "GPE", "FAC", "LOC", "PERSON"})

#: entity labels that never name an attribute's value (a time, an amount)
_NOT_VALUES = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})


def _unframed(c: Clause) -> Keyed | None:
    """The speaker's statement of a name through a verb no frame has ("We've settled into a cottage in
    Bath"): subject and value, its attribute left to the meaning of the whole statement."""
    if c.hypothetical or c.background or c.negated or c.verb == "be":
        return None
    if c.tense not in ("present", "perfect", "progressive"):
        return None  # an unknown verb in the past tells an event far more often than a change
    if _who(c.subject) != "user" or attributes.frames_for(c.verb):
        return None
    named = [
        p
        for p in (c.obj, *(p for _, p in c.preps))
        if p is not None and _name(p) and p.label not in _NOT_VALUES
    ]
    return Keyed("user", None, named[0].text) if named else None


#: words that set what a sentence says ahead of its time
_AHEAD = frozenset({"tomorrow", "next", "soon", "upcoming", "will", "'ll", "gonna", "going"})
#: entity labels of a name the small pipeline gives a company it does not know (or a person, or none)
_ORGANISATION = frozenset({"ORG", "FAC", "PERSON", "NORP", "GPE", "PRODUCT"})


def _the_speakers_now(parsed: Parsed) -> bool:
    """Whether a sentence with no frame to say whose it is tells the speaker's present: nothing asked or
    planned, no word that sets it ahead, no other person as a subject."""
    if any(c.hypothetical or c.tense in _NOT_NOW for c in parsed.clauses) or set(parsed.words) & _AHEAD:
        return False  # "first day at Fennick tomorrow": still ahead
    return not any(
        c.subject is not None
        and (
            _who(c.subject) not in (None, "user")
            or c.subject.head in _PRONOUNS_OF_PEOPLE
            or _someone_named(c.subject)
        )
        for c in parsed.clauses
    )


def _someone_named(subject: Phrase) -> bool:
    """Whether a subject is someone named with a word for who they are that is no thing of the inventory:
    "our vicar Rev Parfitt", "my tutor Nia" (not "my gym Iron Temple")."""
    if subject.kind is not None:  # the name parsed as the head
        return attributes.for_noun(subject.kind) is None
    return subject.name is not None and attributes.for_noun(subject.head) is None


def _spent(parsed: Parsed) -> Keyed | None:
    """Time said as spent at or into something, with no other person in the sentence and nothing asked
    or planned: "Week one at Tidewater Labs done", "six weeks at Ortolan", "three weeks into Helix now".
    The thing's attribute is the one its name gives away (an editor, "Kestrel Bank"); a name of no known
    kind that time is spent "at" is where the speaker works, the place a person spends weeks at."""
    if not parsed.spent or not _the_speakers_now(parsed):
        return None
    for prep, phrase in parsed.spent:
        if prep == "as":  # "ten years as an ICU nurse": a role, said of now unless said as past
            role = attributes.for_value(phrase.head) or attributes.for_value(phrase.text)
            if role is not None and role.name == "occupation":
                return Keyed("user", "occupation", phrase.text)
            continue
        if not _name(phrase):
            continue
        owner = _owned_by(phrase)
        if owner is not None:
            return Keyed("user", owner.name, phrase.text) if not owner.multi else None
        if prep == "at" and (phrase.label is None or phrase.label in _ORGANISATION):
            return Keyed("user", "works_at", phrase.text)
    return None


_NEGATING = frozenset({"no", "not", "never", "off", "anymore", "longer", "without", "ex", "former", "old"})


def _value_now(parsed: Parsed) -> Keyed | None:
    """A sentence with no verb that says a value of an attribute holds now: "Korean now.", "Plant-based
    since New Year": the speaker's, for the attribute the value gives away; never with a word of denial."""
    if set(parsed.words) & _NEGATING:
        return None
    for said in parsed.now:
        attr = attributes.for_value(said) or _by_its_noun(said)
        rest = said.split()[1:]
        if (
            rest
            and attributes.for_value(said.split()[0]) is attr
            and not all(w[:1].isupper() or w[:1].isdigit() for w in rest)
        ):
            continue  # "Italian food now" is no language; "Galaxy S24 now" is a phone
        if attr is not None and attr.name not in _LIKED:
            return Keyed("user", attr.name, said)
    return None


def _by_its_noun(said: str) -> Attribute | None:
    """The attribute a name gives away by the noun it ends in ("Ferrybridge Dental", "Octopus Energy"),
    for a name of two words or more, each capitalised."""
    words = said.split()
    if len(words) < 2 or not all(w[:1].isupper() for w in words):
        return None
    found = _noun_attribute(" ".join(words[1:]).lower())
    # a name ending in a thing bought ("Meadow Mobile", "Carz Direct Cars") is a company, not that thing
    return found if found is not None and "PRODUCT" not in found.entities else None


def _implied(parsed: Parsed) -> Keyed | None:
    """An attribute said only through a thing of it: "the new flat in Bristol", "the radiators in my
    Leeds flat" name the home's city; "Loving the new flat, the canals in Leiden are great" too (the
    new thing's noun names the attribute, the sentence's one entity of its kind the value). Never an
    old or former thing, nor a plan, a condition or a denial."""
    if any(c.hypothetical or c.tense in _NOT_NOW or c.negated for c in parsed.clauses[:1]):
        return None
    for owner, noun, new, old, named in parsed.nouns:
        attr = attributes.for_noun(noun)
        if attr is None and new and named and (by_value := attributes.for_value(named)) is not None:
            attr = by_value  # "the replacement, a Galaxy S24": the new thing's name gives it away
        if attr is None and _new_role(noun, noun, owner, new, old) and _a_person_after(parsed, noun, named):
            # "the new vicar, the Reverend Jo Kimber, came round": a role the inventory has no attribute for,
            # held by the person named beside it; said new, it is the speaker's now, keyed under its noun
            return Keyed("user", noun, named)
        if attr is None or not attr.entities or old or owner not in ("", "my", "our"):
            continue
        if named:
            return Keyed("user", attr.name, named)
        found = [text for text, label in parsed.entities if label in attr.entities]
        if new and len(found) == 1:
            return Keyed("user", attr.name, found[0])
    return None


def _as_its_name(complement: Phrase | None) -> Phrase | None:
    """A complement that calls something by name stands for the name ("a company called Hearth")."""
    if complement is None or complement.name is None or complement.proper:
        return complement
    return replace(complement, text=complement.name, proper=True)


def _new_role_called(subject: Phrase, complement: Phrase | None) -> Keyed | None:
    """ "New head chef is a fella called Kev Duffy": a role the inventory has no attribute for, held now by
    whom the complement calls by name, as "the new vicar, Jo Kimber" is (:func:`_implied`)."""
    if complement is None or complement.name is None or complement.proper:
        return None
    if not _new_role(subject.text.lower(), subject.head, subject.owner, subject.new):
        return None
    return Keyed("user", _CHANGE_WORDS.sub("", subject.text.lower()), complement.name)


def _new_role(text: str, head: str, owner: str | None, new: bool, old: bool = False) -> bool:
    """Whether a thing (``text``, its ``head`` noun) is called new and not old, with no owner said or the
    speaker's, and no attribute of the inventory and no relation names it ("the new head chef", "our new
    verger"): a role the speaker's life has that the inventory has no entry for."""
    return (
        new
        and not old
        and owner in (None, "", "my", "our")
        and _noun_attribute(text) is None
        and attributes.relation_of_any_number(head) is None
    )


def _a_person_after(parsed: Parsed, noun: str, named: str) -> bool:
    """Whether ``named`` is a person's name said after ``noun`` ("the new vicar, Jo Kimber"), not a name
    before it that says what kind of thing it is ("the new Taylor Swift album")."""
    label = next((lab for text, lab in parsed.entities if text == named), None)
    if not named or label not in (None, "PERSON"):
        return False  # the small pipeline leaves many names unlabelled; one labelled a place is no person
    words = list(parsed.words)
    first = named.split()[0].lower()
    at_noun = next((i for i, w in enumerate(words) if w.startswith(noun)), None)
    at_name = next((i for i, w in enumerate(words) if w == first), None)
    if at_noun is None or at_name is None or at_name <= at_noun:
        return False
    return words[at_name - 1] not in _BEFORE_A_PLACE  # "the new office in Bramley": a place


#: prepositions a place's name follows ("the new office *in* Bramley")
_BEFORE_A_PLACE = frozenset({"in", "at", "on", "with", "from"})


def attribute(sentence: str) -> Key:
    """(subject, predicate, value) for a speaker's statement, else three Nones."""
    found = read(sentence)
    return found.key if found is not None else NO_KEY


# --- who ---------------------------------------------------------------------------------------


def _who(phrase: Phrase | None) -> str | None:
    """Whose attribute a clause states: the user for "I", "we" or no subject; "user's brother" for "my
    brother" (her name when said: "my sister Ana" is "Ana"); a named person by name; None otherwise."""
    if phrase is None or phrase.head in _SPEAKER:
        return "user"
    if phrase.text.startswith("user's "):
        return phrase.text  # a pronoun read as the relative named before
    role = attributes.relation(phrase.head)
    if role is not None and (phrase.owner in ("my", "our") or phrase.head in PARENTS):
        return phrase.name or f"user's {role.removeprefix('relation:').replace('_', ' ')}"
    if phrase.kind is not None and phrase.owner in ("my", "our") and attributes.relation(phrase.kind):
        return phrase.text  # "my sister Ana", parsed with the name as the head
    if phrase.proper and phrase.owner is None and phrase.text[:1].isupper() and phrase.text not in NOT_NAMES:
        return phrase.text
    return None


def named_in_passing(sentence: str) -> list[Keyed]:
    """The relative (or pet) any sentence names by name ("my sister Ines"), whatever else it says: read on
    every sentence of a message, so a request or a question ("write a card for my sister Ines", "what
    should I get my brother Tom?") still tells who Ines is though what it asks is no fact. The sentence's
    parse is the one the extractor warmed, so this costs no parse of its own."""
    found = _named_relative(parse(sentence.replace("\u2019", "'")))
    return [found] if found is not None else []


def _named_relative(parsed: Parsed) -> Keyed | None:
    """ "my sister Ana", "my daughter Sara's party", "a dog named Rex" (had, got or adopted by the
    speaker): the relation (or the pet) and the name."""
    for owner, noun, name in parsed.names:
        if name.split()[0] in NOT_NAMES:
            continue
        if attributes.is_pet(noun):
            return Keyed("user", "pet", name)
        role = attributes.relation(noun)
        if role is not None and owner in ("my", "our", "have"):
            return Keyed("user", role, name)
    return None


# --- a clause ----------------------------------------------------------------------------------


def _clause(c: Clause, parsed: Parsed) -> Keyed | None:
    if c.hypothetical or c.background or c.tense in _NOT_NOW:
        return None
    ended = _ended_relative(c)
    if ended is not None:
        return ended
    who = _who(c.subject)
    if c.verb == "be":
        if (c.tense in _PAST and not c.stopped) or (c.negated and not c.stopped):
            return None  # "I was a teacher", "my partner is not Anna": nothing of now
        found = _copula(c, parsed)
        if found is not None and c.stopped and not (c.complement is None and not c.negated):
            return replace(
                found, ends=True
            )  # "I'm not vegan anymore"; "not anymore, I'm in Arizona now" is new
        return found
    switched = (
        _switched(c, who or "user") if c.tense not in _PAST or c.verb in attributes.SWITCH_VERBS else None
    )
    if switched is not None or who is None:
        return switched
    if c.nested is not None and (carried := _carried(c, who, parsed)) is not None:
        return carried
    if c.verb == "use" and c.tense == "past" and c.nested is not None:
        return None  # "I used to live in Berlin"
    return _preference(c, who) or _framed(c, who, parsed)


def _carried(c: Clause, who: str, parsed: Parsed) -> Keyed | None:
    """A statement carried by another verb: "started working at Kelmar" (the nested verb's, now),
    "stopped learning Italian" (the nested verb's, ended), "love to paint" (a like)."""
    nested = c.nested
    assert nested is not None
    if c.obj is not None:
        return None  # "gave up my seat to play tennis": what was given up is the seat
    if c.verb in _BEGIN:
        return _framed(_as(nested, c), who, parsed, change=True)
    if c.verb in _END:
        found = _framed(_as(nested, c), who, parsed, change=True)
        return Keyed(found.subject, found.predicate, found.value, ends=True) if found else None
    liked = _LIKE.get(c.verb) or _DISLIKE.get(c.verb)
    if liked is not None and c.tense not in _PAST:
        value = " ".join(p for p in (nested.verb, nested.obj.text if nested.obj else "") if p)
        return Keyed(who, _negated(liked, c), value) if value else None
    return None


def _as(nested: Clause, outer: Clause) -> Clause:
    """The nested clause with the outer clause's tense and negation (its own are the infinitive's)."""
    return Clause(
        **{**nested.__dict__, "tense": outer.tense, "negated": outer.negated, "stopped": outer.stopped}
    )


def _negated(predicate: str, c: Clause) -> str:
    if c.negated and predicate in ("likes", "dislikes"):
        return "dislikes" if predicate == "likes" else "likes"
    return predicate


def _preference(c: Clause, who: str) -> Keyed | None:
    """ "I prefer window seats (to aisle seats)": a preference on the topic of the thing preferred, or
    the attribute the value gives away ("I prefer Vim" is the editor)."""
    if c.verb != "prefer" or c.obj is None or c.tense in _PAST:
        return None
    value = c.obj.text
    attr = attributes.for_value(value)
    if attr is not None:
        return Keyed(who, attr.name, value)
    alt = next((p.text for prep, p in c.preps if prep in ("to", "over")), None)
    alt = alt or next((o for prep, o in c.obj.preps if prep in ("to", "over")), None)
    topics = {stem(c.obj.text.split()[-1])} | ({stem(alt.split()[-1])} if alt else set())
    return Keyed(who, "preference:" + "/".join(sorted(topics)), value)


def _switched(c: Clause, who: str) -> Keyed | None:
    """ "I switched my editor to Helix", "my editor changed to Helix", "I now use Helix as my editor":
    the attribute named as "my X", and the new value."""
    to = next((p for prep, p in c.preps if prep == "to"), None)
    mine = c.obj if c.obj is not None and c.obj.owner in ("my", "our") else None
    if mine is None and c.obj is not None and c.obj.owner is None and _single(c.obj.head):
        mine = c.obj  # "switched banks to Monzo": the attribute named by its noun alone
    if c.verb in attributes.SWITCH_VERBS and to is not None:
        named = mine or (c.subject if c.subject is not None and c.subject.owner in ("my", "our") else None)
        if named is not None and attributes.relation(named.head) is None:  # "my cousin moved to X" is hers
            return _noun_key("user", named.text if named.owner else named.head, to.text)
    as_ = next((p for prep, p in c.preps if prep == "as" and p.owner in ("my", "our")), None)
    if as_ is not None and c.obj is not None:
        return _noun_key(who, as_.text, c.obj.text)
    return None


# --- frames ------------------------------------------------------------------------------------


def _framed(c: Clause, who: str, parsed: Parsed, *, change: bool = False) -> Keyed | None:
    """The attribute whose frame fits the clause best, with its value; None when none fits."""
    best = _best_frame(c, parsed)
    if best is None:
        return _switched_to_value(c, who) or _left_a_name(c, who)
    _, attr, frame, text = best
    if text is not None and attributes.for_noun(text) is attr and attr.entities:
        # "bought a cottage in Cromer": the noun names the attribute; the name said with it is the value
        text = next((p.text for prep, p in c.preps if prep in ("in", "at") and _name(p)), None)
    if frame.verb in BOUNDED_VISITS and parsed.timed:
        return None  # "I'm staying in Lisbon this week", "stayed in Rome for a week": a visit
    if not _current(c, frame, change) or (text is None and not frame.ends):
        return None
    predicate = _negated(attr.name, c)
    if predicate in ("likes", "dislikes"):
        return Keyed(who, predicate, text) if text else None
    if c.negated and not c.stopped:
        return None  # "I don't live in Berlin": says nothing stopped, and nothing of now
    if who != "user" and (attr.name == "pet" or attr.name.startswith("relation:")):
        return None  # another person's pets and relations are not keyed
    return Keyed(who, predicate, text, ends=frame.ends or c.stopped)


_LIKED = frozenset({"likes", "dislikes"})


def _owned_by(phrase: Phrase | None) -> Attribute | None:
    """The attribute a value gives away by itself ("VS Code" is an editor), or None."""
    if phrase is None:
        return None
    found = attributes.for_value(phrase.text)
    if found is None and (phrase.proper or phrase.label is not None) and " " in phrase.text:
        # the longest ending of the name the inventory has a noun for: "Kestrel Bank", "Riverside Rowing
        # Club", "Elm Tree Medical Centre", "Elmfield Nursing Home" (a home, not the value "home")
        found = _noun_attribute(" ".join(phrase.text.lower().split()[1:]))
    if found is None and (phrase.proper or " " not in phrase.text):
        found = attributes.for_value(
            phrase.head
        )  # never a common noun's head alone: a "care home" is no "home"
    return found


def _overrides(phrase: Phrase | None, frame: Frame, attr: Attribute) -> bool:
    """Whether the attribute a value gives away overrides ``frame``'s: always when the value is one of its
    values ("VS Code"); when only the name's last word names it ("Clearwater Bank"), not for a frame of
    the attribute's own that takes a name of its kind ("remortgaged with Clearwater Bank")."""
    if phrase is None or attributes.for_value(phrase.text) or attributes.for_value(phrase.head):
        return True
    return frame.weak or not (attr.entities and phrase.label in attr.entities)


def _left_a_name(c: Clause, who: str) -> Keyed | None:
    """ "Left Corvell after six years", "I quit Duolingo", "ditched emacs", "switched from Disney+": a verb
    that ends values of several attributes, or drops a thing whatever it was (:data:`attributes.DROPS`),
    said of a name no frame claims or of a value that gives its attribute away, is an ending of the
    speaker's value of it, keyed to that attribute when the value gives it (core/write/ends.py ends it
    when one is stored, else the statement stays unkeyed). The frame says where the value is: the verb's
    object, or the phrase of its preposition."""
    if who != "user" or c.negated or c.tense in _NOT_NOW:
        return None
    named = _dropped(c)
    if named is None or named.label in _NOT_VALUES or named.owner is not None:
        return None
    owner = attributes.for_value(named.text)
    if owner is None and not _name(named):
        return None
    return Keyed(who, owner.name if owner is not None else None, named.text, ends=True)


def _dropped(c: Clause) -> Phrase | None:
    """What an ending verb says stopped: its object ("quit Duolingo"), or with an ending frame's
    preposition, that phrase ("switched from Vodafone", "left of …" never); None when the verb ends
    nothing."""
    for _, frame in attributes.endings():
        if frame.verb != c.verb:
            continue
        if frame.prep is None and frame.obj is None:
            found = (
                c.obj
                if c.obj is not None
                else next((p for prep, p in c.preps if prep in ("from", "of")), None)
            )
        elif frame.prep is not None and frame.obj is None:
            found = next((p for prep, p in c.preps if prep == frame.prep), None)
        else:
            continue
        if found is not None:
            return found
    return None


def _switched_to_value(c: Clause, who: str) -> Keyed | None:
    """ "I moved everything to VS Code", "switched over to Firefox", "switched to Japanese", "gone over to
    Octopus": a switch whose value gives its attribute away, when no frame of the verb fits (of a
    multi-valued attribute, the value taken up; what was left is ended by its own clause)."""
    # "switched to", "moved everything over to"; any verb with "over" to a value is a switch ("gone over to
    # Octopus", "jumped over to Monzo")
    if c.verb.split()[0] not in attributes.SWITCH_VERBS and not c.verb.endswith(" over") or c.negated:
        return None
    if c.obj is not None and _a_person(c.obj):
        return None  # "moved Dad into a care home": where he went
    for phrase in (p for prep, p in c.preps if prep in ("to", "into")):
        owner = _owned_by(phrase)
        if owner is not None:
            return Keyed(who, owner.name, phrase.text)
    return None


def _best_frame(c: Clause, parsed: Parsed) -> tuple[int, Attribute, Frame, str | None] | None:
    """(score, attribute, frame, value) of the frame that fits the clause best, or None: the value's words
    (a noun or a value of the attribute) count most, then its entity label, then a specific verb."""
    best: tuple[int, Attribute, Frame, str | None] | None = None
    for attr, frame in _frames(c.verb):
        value = _value(c, frame, attr, parsed)
        if value is False:
            continue
        phrase = value if isinstance(value, Phrase) else None
        owner = _owned_by(phrase)
        if (
            owner is not None
            and owner is not attr
            and owner.name not in _LIKED
            and _overrides(phrase, frame, attr)
        ):
            continue  # "moved everything to VS Code": the value is an editor, whatever the verb
        lexical, labelled = _confirmed(attr, phrase)
        # a name no attribute claims, said by the speaker in a sentence that names the attribute by a noun of
        # its own ("went with Saga for the home insurance", "home insurance renewal came, we've been with
        # Aviva"): the sentence's words say it, after any frame the value's own words or a specific verb fit
        loose = frame.weak and lexical <= 0 and _loosely_confirmed(c, phrase, owner, attr, parsed)
        if frame.weak and lexical <= 0 and not loose:
            continue  # a verb of many uses states the attribute only when the value's words say it too
        score = lexical + labelled + (0 if frame.weak else 2) + (1 if frame.prep or frame.obj else 0)
        score -= 3 if loose else 0
        score += 1 if phrase is not None and (phrase.proper or phrase.label is not None) else 0
        if best is None or score > best[0]:
            best = (score, attr, frame, _text(phrase, attr, frame.ends) if phrase is not None else None)
    return best


def _loosely_confirmed(
    c: Clause, phrase: Phrase | None, owner: Attribute | None, attr: Attribute, parsed: Parsed
) -> bool:
    """Whether a value whose own words give no attribute is the speaker's name of ``attr``: a name no
    attribute claims, in a clause of the speaker's, in a sentence naming ``attr`` by one of its nouns
    (or their plurals)."""
    if owner is not None or phrase is None or not _name(phrase) or _who(c.subject) not in (None, "user"):
        return False
    said = f" {' '.join(parsed.words)} "
    return any(f" {noun} " in said or f" {noun}s " in said for noun in attr.nouns)


def _frames(verb: str) -> tuple[tuple[Attribute, Frame], ...]:
    return attributes.frames_for(verb)


def _ended_relative(c: Clause) -> Keyed | None:
    """ "My grandmother passed away", "our cat Miso died": the user's relation (or pet) ends; its value
    is the name when said, else the word for them."""
    s = c.subject
    if s is None or s.owner not in ("my", "our") or c.tense in _NOT_NOW:
        return None
    family = attributes.by_name("relation:x")
    pet = attributes.by_name("pet")
    noun = s.kind or s.head  # "my dog Rex": the name's kind
    predicate = "pet" if attributes.is_pet(noun) else attributes.relation(noun)
    holder = pet if predicate == "pet" else family
    if predicate is None or holder is None:
        return None
    if not any(f.ends and f.verb == c.verb and f.prep is None and f.obj is None for f in holder.frames):
        return None
    return Keyed("user", predicate, s.name or s.text, ends=True)


def _current(c: Clause, frame: Frame, change: bool) -> bool:
    """Whether the clause states something of now: a state in the present (or perfect: "I've lived
    here since 2019"), a change in the past or perfect ("moved", "have joined"); never a state said in
    the past ("when I still used Vim"), a change still ahead ("I'm moving in August")."""
    if (c.implied_subject or c.subject is None) and c.tense == "present" and frame.weak and not frame.state:
        return False  # "Find a bigger place", "join a choir": a to-do said without a subject, not a change
    if c.tense in _PAST:
        return not frame.state or change or frame.ends or c.stopped
    if c.tense == "progressive":
        return frame.state or frame.ends or frame.obj is not None  # "I'm taking lessons in Japanese"
    return True


def _value(c: Clause, frame: Frame, attr: Attribute, parsed: Parsed) -> Phrase | None | bool:
    """The clause's value for ``frame``: a phrase, None when the frame takes none (an end: "resigned"),
    False when the frame does not fit the clause."""
    if frame.obj is not None and (
        c.obj is None or c.obj.head not in (frame.obj, frame.obj.removesuffix("s"))
    ):
        return False
    if (
        frame.prep is not None
        and frame.obj is None
        and c.obj is not None
        and (c.obj.proper or _a_person(c.obj))
    ):
        # "moved Maya to a childminder", "moved the kids to Oakfield": what the verb moves is named (the small
        # pipeline labels an unfamiliar name a place as often as a person), and it is that which goes there
        return False
    if frame.prep is not None:
        found = next((p for prep, p in c.preps if prep == frame.prep), None)
        if found is None and frame.obj is not None and c.obj is not None:
            # "taking lessons in Japanese": the preposition hangs on the frame's object
            said = next((o for prep, o in c.obj.preps if prep == frame.prep), None)
            found = Phrase(text=said, head=said.lower()) if said else None
        if found is None:
            return None if frame.obj is not None and frame.ends else False
        return found
    if frame.obj is not None:
        return _loose_value(c, attr, parsed)
    if c.obj is not None:
        return c.obj
    if frame.ends:
        return None
    return False


def _a_person(phrase: Phrase) -> bool:
    """Whether a phrase names a person: a name the pipeline labels one, a relation ("the kids", "my mum"),
    or a pronoun for people ("him")."""
    return (
        phrase.label == "PERSON"
        or attributes.relation_of_any_number(phrase.head) is not None
        or phrase.head in _PRONOUNS_OF_PEOPLE
    )


def _loose_value(c: Clause, attr: Attribute, parsed: Parsed) -> Phrase | None:
    """A value a fixed-object frame leaves to the rest of the sentence ("set a new record: 21:30"):
    the first entity of the attribute's labels."""
    found = [
        Phrase(text=text, head=text.lower(), label=label)
        for text, label in parsed.entities
        if label in attr.entities
        # a person's name the small pipeline labelled as a place or a company ("seeing someone, Tomasz")
        or "PERSON" in attr.entities
        and label in _ORGANISATION
        and text.split()[0] not in NOT_NAMES
    ]
    return found[-1] if found else None  # "on the 5k: 21:30": the figure comes last


def _confirmed(attr: Attribute, value: Phrase | None) -> tuple[int, int]:
    """How far a value gives its attribute away: by its words (its head among the attribute's nouns or
    values), and by its entity label (among the attribute's labels: more; another's: less). The small
    pipeline's labels of unfamiliar names are often wrong, so words count for more."""
    if value is None:
        return 0, 0
    lexical = 0
    if attributes.for_noun(value.head) is attr or attributes.for_noun(value.text) is attr:
        lexical += 3
    if attributes.for_value(value.text) is attr or attributes.for_value(value.head) is attr:
        lexical += 3
    if not lexical and _name_says_noun(value.text, attr):
        lexical += 3
    labels = {value.label, *(label for _, label in value.entities)} - {None}
    labelled = 0
    if attr.entities and labels & set(attr.entities):
        labelled = 2
    elif attr.entities and value.label is not None:
        labelled = -1
    return lexical, labelled


def _name_says_noun(name: str, attr: Attribute) -> bool:
    """Whether a name says a noun of ``attr`` in its own words: a word of it ("The *Gym* Group", "Lloyds
    *Pharmacy*"), its last two words ("Millbrook *Leisure Centre*"), or the end of a word written as one
    ("Pure*Gym*")."""
    nouns = [n for n in attr.nouns if " " not in n and len(n) >= 3]
    words = name.lower().split()
    if len(words) > 2 and attributes.for_noun(" ".join(words[-2:])) is attr:
        return True  # "Millbrook *Leisure Centre*": a noun of two words ends it
    for word in re.findall(r"[A-Za-z]+", name):
        low = word.lower()
        if attributes.for_noun(low) is attr or any(
            low.endswith(n) and word[-len(n)].isupper() for n in nouns
        ):
            return True
    return False


def _text(value: Phrase, attr: Attribute, ends: bool = False) -> str | None:
    """The value as said; the entity of the attribute's kind inside it when the phrase's own head is not
    one ("a flat in Utrecht" -> "Utrecht" for a home); None for a pronoun."""
    if value.head in _PRONOUNS or value.text.lower() in _PRONOUNS:
        return None
    if value.of is not None and attributes.for_noun(value.head) is attr:
        return value.of  # "my job at Acme": the phrase names the attribute, its object the value
    if value.name is not None and not value.proper:
        return value.name  # "a startup called Fenwick Labs"
    if ends and not attr.multi and attributes.for_noun(value.text) is attr and value.text.islower():
        return None  # "quit my job", "quit the climbing gym": the current one, whichever it is
    if attr.entities and value.label not in attr.entities:
        inner = next((t for t, label in value.entities if label in attr.entities), None)
        if inner is not None:
            return inner
    text = value.text
    for said, label in value.entities:
        if label in _SPANS_OF_TIME and text.endswith(said) and text != said:
            text = text[: -len(said)]  # "with Aviva 12 years": how long it has held is no part of it
    text = _CHANGE_WORDS_SAID.sub("", text).strip(" '\"")
    return text or None


#: entity labels of a time or a span of it
_SPANS_OF_TIME = frozenset({"DATE", "TIME"})


# --- the copula --------------------------------------------------------------------------------


def _copula(c: Clause, parsed: Parsed) -> Keyed | None:
    """ "my X is Y", "Y is my X", "the new X is Y", "I'm a nurse", "I'm vegan", "my sister is a nurse",
    "my new flat is in Leiden"."""
    subject, complement = c.subject, c.complement
    if subject is None:
        return None
    if (role := _new_role_called(subject, complement)) is not None:
        return role
    complement = _as_its_name(complement)
    if (owner := _possessor(subject)) is not None:
        return _theirs_is(owner, subject, complement, c)
    if subject.owner is not None and subject.owner.split()[0] in ("my", "our") or subject.new:
        return _named_now_my_relation(subject, complement) or _mine_is(subject, complement, c, parsed)
    if (
        subject.owner is None
        and complement is not None
        and (thing := _thing(subject)) is not None
        and not thing.multi
        and not thing.name.startswith("relation:")
        and (
            _name(complement)
            or any(ch.isdigit() for ch in complement.text)
            or (not thing.entities and not complement.describes)  # plain nouns: "a car fund"
        )
    ):  # "the car's a Kia Niro EV", "deadlift PB is 135kg now", "the savings pot is a car fund": a thing
        # of the inventory with no owner said is the speaker's
        return _noun_key("user", subject.text, complement.text, named=True)
    if complement is not None and (complement.owner in ("my", "our") or complement.new):
        # "Ana is my sister", "Priya is the new boss", "Acme is my employer"
        if subject.proper or subject.label is not None:
            return _noun_key("user", complement.text, subject.text, named=True)
        return None
    who = _who(subject)
    if who is not None and complement is None:
        # "I'm in Leicester"; else a frame of "be" with its preposition ("we're with Aviva": a service)
        return _is_in(who, c, parsed) or (_framed(c, who, parsed) if c.preps else None)
    if who is None or complement is None:
        return None
    return _is_a(who, complement, c)


def _named_now_my_relation(subject: Phrase, complement: Phrase | None) -> Keyed | None:
    """ "my skip Jen Alvarez is now my direct manager": a person named in the subject is the relation the
    complement names, whatever the subject's own noun called them before (never the speaker's job)."""
    if complement is None or complement.owner not in ("my", "our"):
        return None
    name = subject.name or (subject.text if subject.proper else None)
    if name is None or attributes.relation(complement.head) is None:
        return None
    return _noun_key("user", complement.head, name, named=True)


def _thing(subject: Phrase) -> Attribute | None:
    """The attribute a subject phrase names by its longest known ending, change words left out ("the new
    savings pot", "deadlift PB")."""
    return _noun_attribute(_CHANGE_WORDS.sub("", subject.text.lower()).strip()) or _noun_attribute(
        subject.head
    )


_PLACES = frozenset({"GPE", "LOC"})


def _is_in(who: str, c: Clause, parsed: Parsed) -> Keyed | None:
    """ "I'm in Leicester", "she's in a bungalow in Whitby now": where a person is, said in the present with
    no time of a stay, is where they live. The place is a place entity, or a name said after a dwelling
    of the home's nouns (the small pipeline labels unfamiliar towns as organisations)."""
    if c.tense != "present" or c.negated:
        return None
    on = next((p for prep, p in c.preps if prep == "on"), None)
    owner = _owned_by(on) if on is not None else None
    if on is not None and owner is None and len(on.text.split()) > 1:
        owner = attributes.for_noun(
            on.head
        )  # "I'm on the Payments team": the noun names it, its words the value
    if on is not None and owner is not None and not owner.multi and owner.name not in _LIKED:
        return Keyed(who, owner.name, on.text)  # "I'm on the Galaxy Z Flip6 now", "she's on Obsidian"
    if parsed.timed:
        return None  # "I'm in Paris this week": a stay
    at = next((p for prep, p in c.preps if prep == "at"), None)
    # an organisation: labelled so, or a name of several words the pipeline did not label, never a visit
    # in company or for a purpose ("I'm at Nandos with the team", "… for a meeting")
    org = at is not None and (at.label == "ORG" or at.label is None and at.proper and " " in at.text)
    if at is not None and org and _name(at) and not any(p in ("with", "for") for p, _ in c.preps):
        held = _owned_by(at)  # "I'm at Quillon Pharma until July": a school, a gym, else the employer
        if held is not None and held.entities and "ORG" in held.entities:
            return Keyed(who, held.name, at.text)  # "Lwazi is at Heritage Academy": its name says a school
        employer = attributes.by_name("works_at")
        # someone else "at" a place the name says nothing of may be visiting it ("Dad's at Tesco")
        return Keyed(who, employer.name, at.text) if employer is not None and who == "user" else None
    home = attributes.by_name("lives_in")
    assert home is not None
    places = [p for prep, p in c.preps if prep == "in"]
    dwelling = any(attributes.for_noun(p.head) is home for p in places)
    for p in places:
        if p.label in _PLACES or (dwelling and _name(p) and p.label in (None, "ORG", "FAC", "PERSON")):
            return Keyed(who, "lives_in", p.text)
        inner = p.of if attributes.for_noun(p.head) is home else None
        if inner is not None and inner[:1].isupper():
            return Keyed(who, "lives_in", inner)  # "she's in a flat in Kendal now"
    return None


def _mine_is(subject: Phrase, complement: Phrase | None, c: Clause, parsed: Parsed) -> Keyed | None:
    owner = subject.owner or "my"
    if owner not in ("my", "our"):
        # "my sister's name is Ana", "my dog's name is Rex", "my brother's new job is at Spotify"
        inner = owner.split()[-1]
        if subject.head == "name":
            if complement is None or not _name(complement):
                return None
            if attributes.is_pet(inner):
                return Keyed("user", "pet", complement.text)
            role = attributes.relation(inner)
            return Keyed("user", role, complement.text) if role else None
        role = attributes.relation(inner)
        if role is None or len(owner.split()) != 2:
            return None
        who = f"user's {role.removeprefix('relation:').replace('_', ' ')}"
        found = _mine_is(replace(subject, owner="my"), complement, c, parsed)
        if found is None or found.subject != "user" or (found.predicate or "").startswith("relation:"):
            return None
        return replace(found, subject=who)
    role = attributes.relation(subject.head)
    if role is not None:
        if complement is not None and _name(complement):
            return Keyed("user", role, complement.text)  # "my sister is Ana", "the new boss is Priya"
        who = subject.name or f"user's {role.removeprefix('relation:').replace('_', ' ')}"
        # "my son is at Heritage Academy", "my mum's in Whitby now": where the relative is
        return _is_a(who, complement, c) if complement is not None else _is_in(who, c, parsed)
    if complement is None:
        place = next((p for prep, p in c.preps if prep in ("in", "at")), None)
        return _noun_key("user", subject.text, place.text, where=True) if place is not None else None
    # "the new guy is great": a new thing not said to be mine keys only an attribute of the inventory
    return _my_thing_is(subject, complement)


def _my_thing_is(subject: Phrase, complement: Phrase) -> Keyed | None:
    """ "my car is a Kia", "the new gym is Iron Temple"; a word that describes the thing is no value of its
    attribute ("the new office is right by the river", "my job is boring"): keyed under the thing's own
    noun when it is mine ("my home is lovely"), else not at all."""
    value = _whole(complement, subject.text)
    attr = _noun_attribute(_CHANGE_WORDS.sub("", subject.text.lower()))
    # "the new dentist at Shawlands Dental Care is class", "the new gym, Iron Temple, is class": the thing
    # is named (where it is, or beside it), the rest describes it
    where = next((t for prep, t in subject.preps if prep in ("at", "in", "with") and t[:1].isupper()), None)
    where = where or (subject.name if subject.name and _may_be(subject, attr) else None)
    if attr is not None and attr.entities and where is not None and not _of_its_kind(value, attr):
        return Keyed("user", attr.name, where)
    if (
        complement.describes
        and not _name(complement)
        and attr is not None
        and attributes.for_value(value) is not attr
    ):
        return Keyed("user", _described(subject.head), value) if subject.owner is not None else None
    return _noun_key("user", subject.text, value, named=subject.owner is None)


def _may_be(subject: Phrase, attr: Attribute | None) -> bool:
    """Whether the name said beside a thing's noun may be a value of its attribute by the name's entity label:
    none, one of the attribute's, or a person's where the attribute's is an organisation (the small pipeline
    labels unfamiliar companies as people). "The new place, Lindqvist & Moe": a company is no home."""
    first = (subject.name or "").split()[:1]
    label = next((lab for text, lab in subject.entities if first and first[0] in text.split()), None)
    labels = set(attr.entities) if attr is not None else set()
    return label is None or label in labels or label == "PERSON" and bool(labels & _ORGANISATION)


def _whole(complement: Phrase, noun: str) -> str:
    """The complement as said, or the entity of the noun's attribute's kind in it, whole ("May 3" for a
    birthday, where the phrase's head is only "May")."""
    attr = _noun_attribute(_CHANGE_WORDS.sub("", noun.lower()))
    if attr is None:
        return complement.text
    return next((t for t, label in complement.entities if label in attr.entities), complement.text)


def _theirs_is(owner: str, subject: Phrase, complement: Phrase | None, c: Clause) -> Keyed | None:
    """ "Lena's birthday is December 28", "Dario's new job is at Spotify": the named person's attribute,
    for a noun the inventory names (never a relation of theirs, nor a noun it does not know)."""
    noun = _CHANGE_WORDS.sub("", subject.text.lower())
    attr = None if _FAVOURITE.match(noun) else _noun_attribute(noun)
    if attr is None or attr.name.startswith("relation:") or attr.name in ("pet", "name"):
        return None
    said = next(
        (t for t, label in (complement.entities if complement else ()) if label in attr.entities), None
    )
    if said is not None:
        return Keyed(owner, attr.name, said)  # "Lena's birthday is December 28": the date whole
    if complement is None:
        place = next((p for prep, p in c.preps if prep in ("in", "at")), None)
        return (
            _noun_key(owner, subject.text, place.text, named=True, where=True) if place is not None else None
        )
    return _noun_key(owner, subject.text, complement.text, named=True)


def _single(noun: str) -> bool:
    """Whether a noun names a single-valued attribute of the inventory (one car, one bank, one doctor)."""
    attr = attributes.for_noun(noun)
    return attr is not None and not attr.multi and not attr.name.startswith("relation:")


def _name(phrase: Phrase) -> bool:
    """Whether a phrase is a name: a proper noun, or capitalised words the pipeline did not know."""
    return (phrase.proper or phrase.text[:1].isupper()) and phrase.text.split()[0] not in NOT_NAMES


def _is_a(who: str, complement: Phrase, c: Clause) -> Keyed | None:
    """ "I'm a nurse", "I'm vegan", "I am 34 years old", "my sister is a nurse": the attribute the
    value gives away."""
    if complement.head == "old":
        years = re.search(r"\b(\d{1,3})\b", complement.text) or re.search(
            r"\b(\d{1,3})\b", " ".join(t for t, _ in complement.entities)
        )
        return Keyed(who, "age", years.group(1)) if years else None
    attr = attributes.for_value(complement.head) or attributes.for_value(complement.text)
    if attr is None and _held_at(complement, c):
        attr = attributes.by_name("occupation")  # "I'm a physiotherapist at Kelso Clinic": a role held there
    if attr is None:
        return None
    return Keyed(who, attr.name, complement.text)


#: what a person can be at an organisation that is no role held there
_NOT_ROLES = frozenset(
    {"member", "regular", "customer", "client", "guest", "patient", "fan", "visitor", "user"}
)


def _held_at(complement: Phrase, c: Clause) -> bool:
    """Whether a common noun is said as held at an organisation ("a physiotherapist at Kelso Clinic", "she's
    a postdoc at the Delft Institute now")."""
    if complement.proper or complement.label is not None or len(complement.text.split()) > 3:
        return False
    if complement.head in _NOT_ROLES or attributes.for_noun(complement.head) is not None:
        return False  # "a member at Kelso Golf Club", "a patient at the Elm Practice": no job
    if any(prep in ("at", "for") and p.label == "ORG" for prep, p in c.preps):
        return True
    return any(prep in ("at", "for") and _label(complement, o) == "ORG" for prep, o in complement.preps)


def _noun_attribute(noun: str) -> Attribute | None:
    """The attribute a noun phrase names, by its longest ending the inventory knows ("10k personal
    best" -> personal best, "current mobile plan" -> mobile plan)."""
    words = noun.split()
    return next(
        (a for i in range(len(words)) if (a := attributes.for_noun(" ".join(words[i:]))) is not None), None
    )


def _noun_key(who: str, noun: str, value: str, *, named: bool = False, where: bool = False) -> Keyed | None:
    """The key of "my <noun> is <value>": the attribute the noun names (favourites are preferences), or
    the noun itself when the inventory has none, or when the value is no name of the attribute's kind
    ("my home is lovely" is about the home, not where it is)."""
    noun = _CHANGE_WORDS.sub("", " ".join(noun.lower().split()))
    value = value.strip(" '\"")
    if not value or value.lower() in _PRONOUNS or len(value.split()) > 5:
        return None
    role = attributes.relation(noun)
    if role is not None:
        return Keyed(who, role, value) if value[:1].isupper() else None
    fav = _FAVOURITE.match(noun)
    if fav:
        topic = noun[fav.end() :]
        attr = attributes.for_noun(topic)
        return Keyed(who, attr.name if attr else f"preference:{topic}", value)
    attr = _noun_attribute(noun)
    if attr is None:
        return Keyed(who, noun.replace(" ", "_"), value) if not named else None
    if attr.entities and not _of_its_kind(value, attr) and attributes.for_value(value) is None:
        return Keyed(who, _described(noun), value) if not where else None
    better = attributes.for_value(value)
    if better is not None and better.name == "occupation" and attr.name == "works_at":
        attr = better  # "my job is nurse"
    return Keyed(who, attr.name, value)


def _described(noun: str) -> str:
    """The key a description of a thing is kept under: its noun ("my kitchen is tiny": "kitchen"), and
    never a name or alias of an attribute ("my dentist is lovely": "described:dentist", "my job is boring":
    "described:job"), so what describes a thing never replaces the attribute's value."""
    key = noun.replace(" ", "_")
    return f"described:{key}" if attributes.by_name(key) is not None else key


#: a house or flat number before a name ("3 Bellfield Road", "Flat 2, 14b Wren Lane")
_HOUSE_NUMBER = re.compile(r"^(?:\S*\d\S*[\s,]+)+")


def _of_its_kind(value: str, attr: Attribute) -> bool:
    """Whether ``value`` is written the way values of ``attr``'s entity kinds are: a name with a capital
    or a word no lexicon knows, or, for kinds written with figures (a personal best, a rent), a value that has one."""
    # a name after a house or flat number is a name too ("3 Bellfield Road")
    named = _HOUSE_NUMBER.sub("", value)
    figures = bool(
        FIGURES & set(attr.entities)
    )  # values written with figures ("135kg", "1:52") and any(ch.isdigit() for ch in value)
    return named[:1].isupper() or statements.typed_lower(named) or figures


# --- other speakers ----------------------------------------------------------------------------

# The speaker's own first person is set aside, then "you" is read as "I".
_SPEAKER_SELF = re.compile(r"\bI(?:'m|'ve|'d|'ll)?\b|\b[Mm]y\b|\b[Mm]ine\b|\b[Mm]e\b|\b[Mm]yself\b")
_YOU_AS_I = [
    (re.compile(r"\b([Yy])ou're\b"), "I'm"),
    (re.compile(r"\b([Yy])ou've\b"), "I've"),
    (re.compile(r"\b([Yy])ou'd\b"), "I'd"),
    (re.compile(r"\b([Yy])ou'll\b"), "I'll"),
    (re.compile(r"\b([Yy])ou are\b"), "I am"),
    (re.compile(r"\b[Yy]ourself\b"), "myself"),
    (re.compile(r"\b[Yy]ours\b"), "mine"),
    (re.compile(r"\b[Yy]our\b"), "my"),
    (re.compile(r"\b[Yy]ou\b"), "I"),
]


#: an assistant's sentence that opens on its premise ("Since you drive a Fabia, …"): what it takes as
#: known about the user, which may be stale, is no statement of theirs
_PREMISE = re.compile(r"^\W*(?:since|because|as|given that|now that|if|assuming)\b", re.IGNORECASE)


def addressed(sentence: str) -> Keyed | None:
    """The key of a second-person statement made to the user: "You live in Berlin" -> lives_in. Never from
    a premise the speaker opens on ("Since you drive a Skoda Fabia, that's a big switch!")."""
    if _PREMISE.match(sentence):
        return None
    text = _SPEAKER_SELF.sub("Speaker", sentence.replace("\u2019", "'"))
    if not re.search(r"\b[Yy]ou", text):
        return None
    for pattern, replacement in _YOU_AS_I:
        text = pattern.sub(replacement, text)
    return _about_user(read(text))


def attribute_addressed(sentence: str) -> Key:
    found = addressed(sentence)
    return found.key if found is not None else NO_KEY


def _about_user(found: Keyed | None) -> Keyed | None:
    """Only the user's own attributes count from another speaker's words."""
    return found if found is not None and found.subject == "user" else None


#: a labelled line, as tools and documents write them: "Home: Porto", "user.city = Porto"
_LABELLED = re.compile(
    r"^\s*(?:the )?(?:user(?:'s|\.|_| )\s*)?(?P<attr>[A-Za-z][A-Za-z ]{1,28}?)\s*[:=]\s*"
    r"(?P<value>[^.;!?\n]{1,60}?)\s*[.]?\s*$",
    re.I,
)


def labelled(sentence: str) -> Key:
    """The key of a labelled line a tool or a document wrote about the user ("Home: Porto"), for a
    label the inventory names with a value of its kind."""
    m = _LABELLED.match(sentence.replace("\u2019", "'"))
    if not m:
        return NO_KEY
    attr = " ".join(m["attr"].lower().replace("_", " ").split())
    if attributes.for_noun(_CHANGE_WORDS.sub("", attr)) is None:
        return NO_KEY
    found = _noun_key("user", attr, m["value"].strip(), named=True)
    if found is None or attributes.by_name(found.predicate or "") is None:
        return NO_KEY
    return found.key


# A statement about the user in the third person ("The user lives in Madrid", "the user's editor is
# Emacs", "User works as a nurse"), as tools, documents and assistants write them, read as the user's
# own first person so it gets the same key, and a contradiction with what the user said is seen.
_ABOUT_USER = re.compile(r"\b(?:[Tt]he )?[Uu]ser(?:'s|\u2019s)?\b")
_THIRD_TO_FIRST = [
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser(?:'s|\u2019s)\s"), "my "),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser is\b"), "I am"),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser was\b"), "I was"),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser has\b"), "I have"),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser\b"), "I"),
]


def labelled_wording(sentence: str) -> str | None:
    """ "User's home: Porto." for a labelled line about the user ("Home: Porto", "user.city = Porto"),
    so the memory names whom it is about; None for any other sentence."""
    m = _LABELLED.match(sentence.replace("\u2019", "'"))
    if not m or labelled(sentence) == NO_KEY:
        return None
    attr = " ".join(m["attr"].lower().replace("_", " ").split())
    return f"User's {attr}: {m['value'].strip()}."


def about_user(sentence: str) -> Keyed | None:
    """The key of a third-person statement about the user ("The user lives in Madrid" -> lives_in), or
    of a labelled line about them ("Home: Madrid")."""
    text = sentence.replace("\u2019", "'")
    key = labelled(text)
    if key != NO_KEY:
        return Keyed(*key)  # type: ignore[arg-type]
    if not _ABOUT_USER.search(text):
        return None
    text = _SPEAKER_SELF.sub("Speaker", text)
    for pattern, replacement in _THIRD_TO_FIRST:
        text = pattern.sub(replacement, text, count=1)
    return _about_user(read(text))


def attribute_about_user(sentence: str) -> Key:
    found = about_user(sentence)
    return found.key if found is not None else NO_KEY
