"""Rule-based extractive answers that reconcile what they cite.

Items sharing the question's key words are grouped by the subject recall found them to speak
about (core/recall/truth.py), and each group brings in its other members: they state the same
attribute, so the current one answers even when it shares no word with the question. For each
subject, the answer states the current item of the highest authority once, word for word (the user's
own third-person memory turned to "you" by models/llm/rules/inflect.py), with its date and what it
replaced as past ("before that, Berlin") when history is known; it attributes claims of lower
authority to their source (and an assistant's or a tool's line is never said as the user's fact),
names a recorded conflict instead of merging it, and never says an episode and the memory derived
from it both. A reply's "(in reply to …)" note says which question it answered, not what the user
said: it is neither matched nor said. When only a retracted item matched, what holds now is what the
message that retracted it says (the memory made from it, else the message itself): that is stated and
cited with the message, and the old value only as no longer holding. A question naming a time ("in
March 2024", "before I moved") is answered with the version that held then
(models/llm/rules/answer_time.py). Only ids of the given items are ever cited; with no item sharing a
key word with the question, it abstains.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import cache

from veramem_desktop.core import attributes
from veramem_desktop.core.llm import AnswerDraft, ContextItem
from veramem_desktop.core.recall import questions, statements
from veramem_desktop.core.recall.query import NOW
from veramem_desktop.core.vocabulary import EPISODE_KIND, LIVE_STATES, STALE_STATES, Authority, State
from veramem_desktop.models.llm.rules import plans
from veramem_desktop.models.llm.rules.answer_time import AskedWhen, asked_when, begun, held_then, only_ends
from veramem_desktop.models.llm.rules.inflect import first_to_second, in_the_past, second_person
from veramem_desktop.models.llm.rules.parse import Clause, Phrase, parse
from veramem_desktop.models.llm.rules.text import content_stems, is_negated, split_sentences

MAX_SUBJECTS = 3
ABSTAIN_TEXT = "No stored memory answers this."
# Words that frame a question rather than say what it is about.
_QUESTION_WORDS = {"user", "what", "when", "where", "who", "which", "how", "why", "tell", "know", "remember"}
#: "-wise" after a word says "as for" it ("job wise", "money-wise"): the word is what is asked
_AS_FOR = re.compile(r"(?<=\w)[ -]wise\b", re.I)
_AUTHORITY_RANK: dict[str, int] = {Authority.AUTHORIZED: 3, Authority.ATTESTED: 2, Authority.UNENDORSED: 1}
_LIVE = LIVE_STATES
#: history: replaced, retracted, kept cold, or (recall's safety net) an older statement of an attribute
#: a newer one states
_STALE = STALE_STATES
#: never said as anything: shown only to a person who asked for rejected material
_WITHHELD = (State.REJECTED, State.HELD)

Row = tuple[int, int, int, ContextItem, set[str]]


def key_terms(question: str) -> set[str]:
    """The stems of what ``question`` asks about: not its question words, nor its words for "now" (they say
    when, as a named time does)."""
    return {s for s in content_stems(_AS_FOR.sub("", NOW.sub(" ", question))) if s not in _QUESTION_WORDS}


def answer(question: str, items: Sequence[ContextItem]) -> AnswerDraft:
    # a plan said beside what holds until then is two versions once its day has come
    items = plans.split(plans.dated_by_siblings(items), datetime.now(UTC).date())
    keys = key_terms(question)
    when = asked_when(question, items)
    if when is not None and keys - when.words:
        keys -= when.words  # "in March 2024" says when, not what
    asked = questions.asked(question)
    person = questions.person_asked(question)
    # the asker's own attribute only where the question asks in their first person ("where's Mam living
    # now?" asks someone's the inventory has no relation for: never "your home")
    own = not person and questions.in_first_person(question)
    if person:  # another person's attribute is never said by what the asker says of themselves
        items = [_read_as_theirs(i) for i in about(items, person)]
    # the attributes the question names by a noun, multi-valued ones too ("which language …": languages learnt)
    named = questions.attributes_of_nouns(questions.asked_nouns(question)) or _read_by_recall(
        items, own and not asked and when is None
    )
    scored = _scored(items, keys, asked | named)
    # no statement of the asker's own shares half the question's words (a claim may): recall's first item,
    # the asker's own close statement, answers
    lead = _closest_own(items, asked | named) if own and when is None else None
    mine = [len(r[4]) for r in scored if r[3].authority == Authority.AUTHORIZED]
    if lead is not None and max(mine, default=0) * 2 < len(keys):
        scored = _scored(items, keys, asked | named, lead)
    if not scored:
        return _said_by_then(items, keys, when, asked | named, person) or AnswerDraft(
            text=ABSTAIN_TEXT, abstained=True, sufficient=False
        )
    groups: dict[str, list[Row]] = {}
    for row in scored:
        groups.setdefault(row[3].group or row[3].id, []).append(row)
    # Subjects in order of their best item: most key words, then what the user said before others' claims.
    ranked = sorted(groups.values(), key=lambda rows: max(r[:3] for r in rows), reverse=True)
    # A question asking one attribute is answered by the subject that states it, alone: another subject
    # said beside it would read as a second current value
    stating = [rows for rows in ranked if any(_states(r[3], asked | named) for r in rows)]
    # what the question's words read as asked before what one of its nouns names ("what's my job title?"
    # asks the occupation, though "job" names the employer too), then in the inventory's order
    stating.sort(
        key=lambda rows: min(
            (not _states(r[3], asked), _place(r[3].subject)) for r in rows if _states(r[3], asked | named)
        )
    )
    ranked = stating[:1] or ranked
    sentences: list[str] = []
    cited: list[str] = []
    covered: set[str] = set()
    by_id = {i.id: i for i in items}
    matched = _matched(ranked, max(r[0] for r in scored))
    # a question naming an attribute, or asking the asker's present, is answered from one statement; one
    # asking what holds (no time named), of anyone, by the asker's own words before a claim beside them
    chosen = _chosen(matched, bool(asked | named) or (own and when is None), own or when is None)
    then = _then_outside_the_subject(chosen[0], scored, items, keys, when, asked | named, person)
    if then is not None:
        return then
    for rows in chosen:
        said, ids = _subject(
            rows + _mates(rows, items), keys, by_id, when, own=own, asked=asked, named=named, person=person
        )
        sentences.append(said)
        cited += ids
        # the subject's rows matched the question: the item saying its current value answers those words too
        covered |= set().union(*(r[4] for r in rows))
        # a subject naming a value of an attribute the question names answers the words naming it ("what
        # instrument does Leo play?": "swapped violin for cello" says the instrument and the playing)
        if any(questions.gives_value_of(own_words(r[3].text), named) for r in rows):
            covered |= keys & _words_of(named)
    # the subjects left unsaid (another day's statement of the same words leads) matched the question too:
    # the memory holds what it asks, said once
    covered |= set().union(*(r[4] for rows in matched for r in rows))
    return AnswerDraft(
        text=" ".join(sentences),
        cited_ids=tuple(dict.fromkeys(cited)),
        abstained=False,
        sufficient=len(covered) / len(keys) >= 0.5 if keys else False,
    )


#: how far down the context (relevance order) a statement said by the asked time is looked for
_THEN_DEPTH = 10


def _matched(ranked: list[list[Row]], best: int) -> list[list[Row]]:
    """The subjects of ``ranked`` sharing enough of the question's words with the best (``best`` key
    words), the first leading."""
    floor = max(1, math.ceil(0.6 * best))
    return [g for g in ranked if max(r[0] for r in g) >= floor][:MAX_SUBJECTS]


def _chosen(matched: list[list[Row]], one: bool, own: bool) -> list[list[Row]]:
    """The subjects said, of ``matched``. ``one``: the question asks one value (an attribute it names, or
    the asker's present state); ``own``: the asker's own statement leading answers alone of claims."""
    chosen = matched
    if one:
        # such a question is answered from one statement: other subjects are said beside the first only
        # when said in the same sitting (the rest of that conversation that day, else of that message: a
        # document's other lines); one said in another would read as a second value of it ("off coffee,
        # green tea only" beside "four coffees a day"), whether a year or a minute before
        sat = {s for r in chosen[0] if (s := _sitting(r[3])) is not None}
        chosen = chosen[:1] + [g for g in chosen[1:] if {_sitting(r[3]) for r in g} & sat]
    if own and any(_own_live(r[3]) for r in chosen[0]):
        # the asker's own statement answers their question: what only a claim says is not said beside it
        chosen = chosen[:1] + [g for g in chosen[1:] if any(_own_live(r[3]) for r in g)]
    return chosen


def _sitting(item: ContextItem) -> tuple[str, str] | None:
    """Where an item was said: its conversation on its day, else its message (its time); None undated."""
    if not item.time:
        return None
    return (item.session, item.time[:10]) if item.session else ("", item.time)


def _own_live(item: ContextItem) -> bool:
    return item.authority == Authority.AUTHORIZED and item.state in _LIVE


@cache
def _stems_of(name: str) -> frozenset[str]:
    """The stems of the words an attribute is named and stated by: its nouns and its frames' verbs."""
    attr = attributes.by_name(name)
    if attr is None:
        return frozenset()
    return frozenset(content_stems(" ".join([*attr.nouns, *(f.verb for f in attr.frames)])))


def _words_of(names: Iterable[str]) -> set[str]:
    return set().union(*(_stems_of(n) for n in names))


def _then_outside_the_subject(
    lead_rows: list[Row],
    scored: list[Row],
    items: Sequence[ContextItem],
    keys: set[str],
    when: AskedWhen | None,
    asked: frozenset[str] = frozenset(),
    person: frozenset[str] = frozenset(),
) -> AnswerDraft | None:
    """For a question naming a time, what held then when the leading subject's versions cannot say it:
    nothing of it was said by the end of that time (the asker's own words said by then say it), or a
    statement matching the question said later than its version then, which the write path did not
    key to it. None otherwise: the subject's versions answer."""
    if when is None or not when.end or when.before_change:
        return None
    lead = [r[3] for r in lead_rows + _mates(lead_rows, items)]
    if not any(m.time and begun(m)[:10] < when.end for m in lead):
        # its first version began after then: a value it says it replaced ("moved out of Wren Lane in
        # July, new place is …") held until it began
        first = min(_own_dated(lead, items), key=begun, default=None)
        if first is not None and _stopped(first):
            return _ended_then(first, keys)
        held = _held_until(first, items, when, asked, person) if first is not None else None
        if held is not None:
            return _said_then(held, items, keys)
        # what began later is never said as what held then: nothing known of then is said so (an undated
        # statement may have held then: it is said as it is)
        found = _said_by_then(items, keys, when, asked, person)
        if found is None and lead and all(m.time for m in lead):
            return _nothing_by_then(lead, when.end)
        return found
    return _latest_by_then([r[3] for r in scored] + lead, items, keys, when, lead, asked, person)


def _held_until(
    first: ContextItem,
    items: Sequence[ContextItem],
    when: AskedWhen,
    asked: frozenset[str],
    person: frozenset[str],
) -> ContextItem | None:
    """What held until a subject's first version began, when that began after the asked time: the first line
    of the asker's own said after then and before the message telling the change, saying a noun of the asked
    attribute and naming a value ("Virgin broadband 45" in a January budget, before "switched to community
    fibre" in March). A state said with no start of its own had held before it was said; a line saying
    something began never does. (What was said by then, :func:`_said_by_then` answers with.)"""
    nouns = _nouns_of(asked)
    if not nouns:
        return None
    start = begun(first)[:10]
    found = [
        i
        for i in _own_dated(items[:_THEN_DEPTH], items)
        if (when.end or "") <= (i.time or "")[:10] < start
        and (i.time or "") < (first.time or "")  # never a line of the message telling the change
        and questions.says_noun(own_words(i.text), nouns)
        and (_gives_a_value(i, asked, person) or _names_before_noun(own_words(i.text), nouns))
        and _of_whom_asked(own_words(i.text), person)
        and not statements.is_request(own_words(i.text))
        and not _starts(i)
        and not _stopped(i)
    ]
    return min(found, key=lambda i: i.time or "", default=None)


def _of_whom_asked(text: str, person: frozenset[str]) -> bool:
    """Whether a line speaks of whom the question asks about: the person named, else the asker themselves
    (not "She'll be teaching in a school there")."""
    return questions.mentions(text, person) if person else not statements.about_someone_else(text)


def _names_before_noun(text: str, nouns: frozenset[str]) -> bool:
    """Whether a word stands right before one of ``nouns`` as its name ("virgin broadband 45" in a list of
    bills): not a word of grammar ("my broadband") nor a figure."""
    words = statements.WORD.findall(text[:400])
    return any(
        statements.lemmas(statements.bare(w)) & nouns
        and at > 0
        and words[at - 1].lower() not in statements.FUNCTION
        and words[at - 1].isalpha()
        for at, w in enumerate(words)
    )


def _nothing_by_then(lead: Sequence[ContextItem], end: str) -> AnswerDraft:
    """An abstention for a time no statement reaches back to (``lead``: the subject's statements, each
    dated): it says when the earliest began, so the person knows what is known, and presents none of them
    as what held then."""
    first = min(begun(m)[:10] for m in lead)
    return AnswerDraft(
        text=f"No stored memory says what held before {end}: the earliest statement of it began on {first}.",
        abstained=True,
        sufficient=False,
    )


def _latest_by_then(
    matching: Sequence[ContextItem],
    items: Sequence[ContextItem],
    keys: set[str],
    when: AskedWhen,
    subject: Sequence[ContextItem],
    asked: frozenset[str] = frozenset(),
    person: frozenset[str] = frozenset(),
) -> AnswerDraft | None:
    """For a question naming a time, the latest of the asker's own statements matching the question (its
    key words, or the asked attribute) that had begun by the end of that time, when it is no statement
    of the leading ``subject`` (whose versions say what held then themselves): what they said last
    before then is what held then, whether or not the write path keyed it to that subject."""
    # a statement that only says a value stopped ("quit PureGym") tells what held no longer, not what held
    by_then = [
        i
        for i in _own_dated(dict.fromkeys(matching), items)
        if begun(i)[:10] < (when.end or "") and _gives_a_value(i, asked, person) and not only_ends(i)
    ]
    if not by_then:
        return None
    chosen = max(by_then, key=begun)
    return None if any(chosen is m for m in subject) else _said_then(chosen, items, keys)


def _gives_a_value(
    item: ContextItem, asked: frozenset[str] = frozenset(), person: frozenset[str] = frozenset()
) -> bool:
    """Whether a statement names what could be a value of the ``asked`` attributes: the value it was keyed
    with, a name that is not the person asked about (in capitals, or a word the lexicon does not know:
    "bachelor thesis at radboud"), or a value the inventory gives one; a figure only where one takes
    figures (a personal best), and never a date. "Statement date: 2022-01-14" or "Re: Mr Bernard Naylor"
    (for Bernard's carer) names none. Of no attribute known, any name, figure or value of the inventory."""
    if item.value:
        return True
    text = own_words(item.text)
    attrs = [a for n in asked if (a := attributes.by_name(n)) is not None]
    figures = not attrs or any(_FIGURE_LABELS & set(a.entities) for a in attrs)
    names = [n for n in _names_in(text) if not _words(n) <= person and (figures or not n[:1].isdigit())]
    words = _words(_DATE.sub(" ", text)) - person
    unknown = [w for w in words if w.isalpha() and len(w) > 2 and statements.a_name(w.capitalize())]
    if names or unknown:
        return True
    if not attrs:
        return any(w[:1].isdigit() for w in words) or any(map(attributes.for_value, words))
    return any(attributes.for_value(w) in attrs for w in words)


def _of_its_label(names: list[str], sentence: str, attribute: attributes.Attribute) -> list[str]:
    """Of several ``names``, those the parse of ``sentence`` labels as ``attribute``'s values are labelled (a
    person's too where it takes an organisation's: the small pipeline labels unfamiliar companies as
    people), else those it gives no label: "70th" is no home, nor "MTech" beside "Chennai". All of them
    when none is such."""
    if len(names) < 2 or not attribute.entities:
        return names
    labels = set(attribute.entities) | ({"PERSON"} if "ORG" in attribute.entities else set())
    found = {text.casefold(): label for text, label in parse(sentence).entities}
    of_its_kind = [n for n in names if found.get(n.casefold()) in labels]
    unlabelled = [n for n in names if n.casefold() not in found]
    return of_its_kind or unlabelled or names


def _own_dated(candidates: Iterable[ContextItem], items: Sequence[ContextItem]) -> list[ContextItem]:
    """Of ``candidates``, the asker's own dated statements that may be said (not withheld, not a request
    stating nothing, and not a message whose memory is among ``items`` and says it with its state)."""
    present = {i.id: i for i in items}
    return [
        i
        for i in candidates
        if i.authority == Authority.AUTHORIZED
        and i.state not in _WITHHELD
        and i.time
        and not _said_by_its_memory(i, present)
        and not _only_asks(i)
    ]


def _only_asks(item: ContextItem) -> bool:
    """Whether ``item`` is a request that states nothing: no value was read in it ("can ye write us a wee
    text to the dentist"; "can you help me word this, I'm at Copperleaf now" was keyed: it states)."""
    return not item.value and statements.is_request(own_words(item.text))


def _said_then(chosen: ContextItem, items: Sequence[ContextItem], keys: set[str]) -> AnswerDraft:
    """A statement said as what held at an asked time: in the past, with the day it was said."""
    said = without_history(_stated(chosen, keys), chosen, items, keys)
    said = in_the_past(first_to_second(said) if chosen.kind == EPISODE_KIND else said).rstrip(".")
    # what replaced or retracted it is cited with it: the answer does not present it as holding now
    after = [i.id for i in items if i.id in (chosen.superseded_by, chosen.retracted_by)]
    return AnswerDraft(
        text=f"{said} (as you said on {(chosen.time or '')[:10]}).", cited_ids=(chosen.id, *after)
    )


def _said_by_then(
    items: Sequence[ContextItem],
    keys: set[str],
    when: AskedWhen | None,
    asked: frozenset[str] = frozenset(),
    person: frozenset[str] = frozenset(),
) -> AnswerDraft | None:
    """For a question naming a time, the most relevant of the asker's own statements said by the end of
    it, as past with the day it was said: what they said then is what held then, when no version of the
    subject is known. Only a statement naming what could be a value of the ``asked`` attributes says
    what held (:func:`_gives_a_value`). None when the question names no time, or nothing of theirs is that
    old."""
    if when is None or not when.end or when.before_change:
        return None
    dated = [i for i in _own_dated(items[:_THEN_DEPTH], items) if _gives_a_value(i, asked, person)]
    own = [i for i in dated if (i.time or "")[:10] < when.end]
    # what had begun by then first; else what was said by then (a date it names may be a deadline: "the
    # thesis is due in June", or an end: "is retiring in April"), never a start said for later ("she starts
    # with Janine in September": what held then is what it replaced)
    then = [i for i in own if begun(i)[:10] < when.end] or [i for i in own if not _starts(i)]
    # and a later statement saying a value stopped ("ditched Ironyard in April", "Janet has moved on"): it
    # held until then, so at the asked time too; the one recall found closer to the question answers
    ended = [i for i in dated if (i.time or "")[:10] >= when.end and _stopped(i)]
    found = [i for i in items if any(i is c for c in then + ended)]
    if not found:
        return None
    # of those, one speaking of the asked attribute first, in recall's order: a line of the period that
    # names some other thing ("the laptop is an old ThinkPad") is no answer while one naming the attribute's
    # value is ("we have Virgin Media", for the broadband)
    topic = _topic(items, asked)
    chosen = min(found, key=lambda i: _off_topic(i, asked, topic))
    return _ended_then(chosen, keys) if any(chosen is e for e in ended) else _said_then(chosen, items, keys)


def _topic(items: Sequence[ContextItem], asked: frozenset[str]) -> frozenset[str]:
    """The words naming values of the ``asked`` attributes among ``items``: the values the write path keyed
    to them, and the names in lines recall reads as stating them ("virgin", "hyperoptic" from "switched to
    hyperoptic after 2 years of Virgin Media"), less words of grammar and figures."""
    words: set[str] = set()
    for i in items:
        if i.value and _states(i, asked):
            words |= _words(i.value)
        read = _read_as(own_words(i.text), asked)
        words |= read.values if read is not None else set()
    return frozenset(w for w in words if w.isalpha() and w not in statements.FUNCTION)


def _off_topic(item: ContextItem, asked: frozenset[str], topic: frozenset[str]) -> int:
    """How far a line is from speaking of the ``asked`` attributes: 0 when recall or its reading says it
    states one, 1 when it says one's noun, a value the inventory types as one, or a value ``topic`` names,
    2 otherwise (and 0 for every line when no attribute is asked)."""
    if not asked:
        return 0
    text = own_words(item.text)
    if _states(item, asked) or _read_as(text, asked) is not None:
        return 0
    if (
        questions.says_noun(text, _nouns_of(asked))
        or questions.gives_value_of(text, asked)
        or _words(text) & topic
    ):
        return 1
    return 2


def _read_as(text: str, asked: frozenset[str]) -> statements.Read | None:
    """What recall reads ``text`` as stating, when that is one of the ``asked`` attributes."""
    read = statements.read(text) if asked else None
    return read if read is not None and set(map(attributes.canonical, read.attributes)) & asked else None


def _nouns_of(asked: frozenset[str]) -> frozenset[str]:
    """The nouns the inventory names the ``asked`` attributes by, in lower case."""
    return frozenset(
        n.lower() for name in asked if (a := attributes.by_name(name)) is not None for n in a.nouns
    )


def _starts(item: ContextItem) -> bool:
    """Whether ``item`` reads as a value of an attribute beginning (a frame of the inventory that ends
    nothing: "starts with", "moving to"), so a later day it names is when its value began."""
    read = statements.read(own_words(item.text))
    return read is not None and bool(read.attributes) and not read.ends


def _stopped(item: ContextItem) -> list[str]:
    """The values ``item`` says stopped, as it writes them ("Ironyard" from "ditched Ironyard in April"),
    or the names it tells as history ("Marmalade" from "we used to have a cat called Marmalade")."""
    text = own_words(item.text)
    stops = _ended_words(text) or _replaced_in(item, text)
    if stops:
        return stops
    # a value said only as not holding any more ("now goes to Lloyds, not boots anymore"): that one stopped
    denied = statements.denied(text) & statements.said_after_not(text)
    if denied and statements.tells_history(text):
        return _as_written(text, denied)[:1]
    told = [
        n
        for s in statements.sentences(text)
        for c in statements.clauses(s)
        if _BEFORE.match(c)
        for n in _names_in(c)
    ]
    return told or (_names_in(text) if statements.tells_history(text) else [])


def _replaced_in(item: ContextItem, text: str) -> list[str]:
    """The inventory's own values of the attribute ``item`` was keyed with that its words say beside its
    value, as written: what that value replaced ("switched to Hyperoptic after 2 years of Virgin Media")."""
    if not (item.subject and item.value):
        return []
    words = [w.lower() for w in statements.WORD.findall(text)]
    found = attributes.values_beside(attributes.canonical(item.subject), words, item.value)
    return [m.group(0) for v in found if (m := re.search(rf"(?<!\w){re.escape(v)}(?!\w)", text, re.I))]


def _ended_words(text: str) -> list[str]:
    """The words of ``text`` naming values it says stopped, as written ("ironyard" in "ditched ironyard")."""
    return _as_written(text, statements.ended(text))


def _as_written(text: str, words: frozenset[str]) -> list[str]:
    """The words of ``text`` that are among ``words`` (bare, lower case), as ``text`` writes them."""
    return (
        [w.rstrip(".,:") for w in re.findall(r"[\w'&-]+", text) if statements.bare(w) in words]
        if words
        else []
    )


#: a clause telling what held before ("before that The Soft Rinse", "used to be at Corvel")
_BEFORE = re.compile(
    r"\W*(?:before that|before then|previously|formerly|used to|back when|back then)\b", re.I
)


def _ended_then(item: ContextItem, keys: set[str]) -> AnswerDraft:
    """A value a statement made after the asked time says stopped, as what held then: the value, until
    the day it was said, with the statement's words."""
    values = " ".join(dict.fromkeys(_stopped(item)))
    said = in_the_past(
        first_to_second(_stated(item, keys)) if item.kind == EPISODE_KIND else _stated(item, keys)
    )
    day = (item.time or "")[:10]
    return AnswerDraft(
        text=f"{values}, until {day} (as you said on {day}: {_lower_first(said)})", cited_ids=(item.id,)
    )


def _read_as_theirs(item: ContextItem) -> ContextItem:
    """An unkeyed statement of someone else's attribute with the attribute recall reads in its words ("Sam
    landed a job at Quantwell": the employer), as recall labels the person's own statements: asked about
    that person, it states what is asked whatever its words."""
    if item.subject or item.authority != Authority.AUTHORIZED:
        return item
    found = statements.read(own_words(item.text))
    if found is None or not found.other:
        return item
    return replace(item, subject=statements.attribute_of(found))


def about(items: Sequence[ContextItem], person: frozenset[str]) -> list[ContextItem]:
    """The items less those the asker says of themselves and not of the person a question asks about: an
    item opening with the asker ("I'm a claims analyst at Brightline", "User's employer: …") that names
    the person neither by the question's words ("my brother", "Femi") nor by a name the items give
    that relation ("my brother Sam" makes "Sam landed a job" speak of him)."""
    names = set(person) | {n for i in items for n in questions.names_given(own_words(i.text), person)}
    return [i for i in items if names & _words(own_words(i.text)) or not _SELF.match(own_words(i.text))]


#: a statement opening with its speaker: what the asker says of themselves
_SELF = re.compile(r"\s*(?:I|I['’](?:m|ve|d|ll)|User(?:['’]s)?|[Mm]y|[Ww]e(?:['’](?:re|ve))?)\b")


def _read_by_recall(items: Sequence[ContextItem], unread: bool) -> frozenset[str]:
    """For a question of the asker's whose words name no attribute (``unread``: "who does my hair now?"),
    the attribute recall read it as asking by its meaning (core/recall/meaning.py), as the items it
    labelled stating it say."""
    if not unread:
        return frozenset()
    return frozenset(attributes.canonical(i.subject) for i in items if i.meant and i.subject)


#: the least closeness to the question at which recall's first hit answers in other words: the floor recall
#: itself takes a statement of the asked attribute by (core/recall/asked.py); a person's answer in their own
#: words is seldom closer ("User's level 2 class at the Magnet Theater …" for "what class am I taking?")
CLOSE = 0.20


def _closest_own(items: Sequence[ContextItem], asked: frozenset[str]) -> ContextItem | None:
    """Recall's first item when it is the asker's own live statement naming a value, close to the question
    (:data:`CLOSE`), and, where the question reads as asking an attribute, no statement the write path
    keyed to another: it answers though it shares no word with the question ("where am I volunteering?" —
    "helping at the food bank on Mondays")."""
    if not items:
        return None
    first = items[0]
    if first.authority != Authority.AUTHORIZED or first.state not in _LIVE or first.closeness is None:
        return None
    # a line only saying a value stopped ("Cancelled the Telegraph") tells what no longer holds
    if first.closeness < CLOSE or statements.is_request(own_words(first.text)) or only_ends(first):
        return None
    if asked and first.subject and first.value and attributes.canonical(first.subject) not in asked:
        return None
    if not _names_in(own_words(first.text)) and not statements.values(own_words(first.text), ""):
        return None
    return first


def _scored(
    items: Sequence[ContextItem],
    keys: set[str],
    asked: frozenset[str] = frozenset(),
    lead: ContextItem | None = None,
) -> list[Row]:
    """The items sharing a key word with the question: (how many, authority, -position, item, which). An item
    recall read as stating the attribute the question asks ("what vehicle do we drive?": the car), and
    ``lead`` (:func:`_closest_own`), answer it whatever their words: they count as sharing every key word."""
    present = {item.id: item for item in items}
    scored: list[Row] = []
    for position, item in enumerate(items):
        if _said_by_its_memory(item, present):
            continue  # its memory is here and says it, with its state
        if item.state in _WITHHELD:
            continue
        shared = set(keys) if (_states(item, asked) or item is lead) and keys else keys & _stems(item)
        if shared:
            scored.append((len(shared), _AUTHORITY_RANK.get(item.authority, 0), -position, item, shared))
    return scored


def _place(subject: str | None) -> int:
    """Where the inventory lists an attribute: "where do I work?" asks the employer before the occupation."""
    return _ORDER.get(attributes.canonical(subject or ""), len(_ORDER))


_ORDER = {a.name: i for i, a in enumerate(attributes.ATTRIBUTES)}


def _said_by_its_memory(item: ContextItem, present: dict[str, ContextItem]) -> bool:
    """Whether a message's memory is among the items (``present``, by id) and says it with its state: not so
    for a message a statement retracted a value of (the memory present may be another value it gave, still
    holding), nor for a message keyed with a value no memory present says ("moved over to davinci resolve,
    … cheat sheet of shortcuts pls": the request's memory says nothing of the editor)."""
    if item.kind != EPISODE_KIND or item.state == State.RETRACTED:
        return False
    memories = [present[d] for d in item.derived if d in present]
    if not item.value:
        return bool(memories)
    value = _words(item.value)
    return any(m.value and _words(m.value) & value or value <= _words(own_words(m.text)) for m in memories)


def _states(item: ContextItem, asked: frozenset[str]) -> bool:
    """Whether recall read ``item`` as a live statement of an attribute the question asks."""
    return (
        bool(item.subject)
        and item.state in _LIVE | _STALE
        and attributes.canonical(item.subject or "") in asked
    )


def _mates(rows: list[Row], items: Sequence[ContextItem]) -> list[Row]:
    """The other items of the rows' subject (recall's group), which state the same attribute though they
    share no key word ("I started at Fietsbank" for "where do I work?"), last."""
    group = rows[0][3].group
    if group is None:
        return []
    have = {id(r[3]) for r in rows}  # by the object: a plan's two versions share their statement's id
    present = {i.id: i for i in items}
    return [
        (0, _AUTHORITY_RANK.get(item.authority, 0), -position, item, set())
        for position, item in enumerate(items)
        if item.group == group
        and id(item) not in have
        and item.state not in _WITHHELD
        and not _said_by_its_memory(item, present)
    ]


def own_words(text: str) -> str:
    """An item's text without a reply's note of the question it answered."""
    return statements.without_reply_note(text)


def _stems(item: ContextItem) -> set[str]:
    """What an item speaks about: its own words, and the attribute it states with its other names in the
    inventory ("lives_in", "home city" for "We finally moved to Ghent!"), so a question asked in other
    words than the memory's still finds it."""
    attribute = attributes.by_name(item.subject) if item.subject else None
    names = " ".join(attribute.aliases) if attribute is not None else ""
    about = re.sub(r"[_:]", " ", f"{item.subject or ''} {names}")
    return content_stems(f"{own_words(item.text)} {about}")


def _subject(
    rows: list[Row],
    keys: set[str],
    by_id: dict[str, ContextItem],
    when: AskedWhen | None = None,
    *,
    own: bool = False,
    asked: frozenset[str] = frozenset(),
    named: frozenset[str] = frozenset(),
    person: frozenset[str] = frozenset(),
) -> tuple[str, list[str]]:
    """One subject said once: its current value, then its history, lower claims and conflicts."""
    # in recall's order: the statement it put first of the subject leads it, as search shows it
    members = [r[3] for r in sorted(rows, key=lambda r: (r[1], r[2]), reverse=True)]
    live = [m for m in members if m.state in _LIVE] or _retiring(members, by_id)
    if not live:  # only history matched: say so rather than present it as current
        item = members[0]
        # cold storage keeps what a broader memory covers, or what was rarely used: nothing said it
        # stopped holding, so the answer does not say so either
        state = "kept in cold storage" if item.state == State.ARCHIVED else "this no longer holds"
        return f"{_sentence(item, keys)} ({state})", [item.id]
    # what stands for a retracted value (the memory made from the statement that retracted it) leads its
    # subject, as recall's truth order has it
    standing = {m.superseded_by for m in members if m.retracted_by}
    head = max(
        live,
        key=lambda m: (
            _AUTHORITY_RANK.get(m.authority, 0),
            m.id in standing,
            not only_ends(m),
            m.state == State.CURRENT,
            -(members + live).index(m),
        ),
    )
    if when is not None:
        # the versions of the asked attribute, where the subject holds them, else all its statements (all
        # of them where the question's words ask no attribute: "what day centre was Ken at?")
        versions = [m for m in members if m.authority == head.authority]
        versions = [m for m in versions if not asked or _states(m, asked) or not m.subject] or versions
        # a request states nothing of then ("can u believe this, just opened the post …") unless the write
        # path read a value in it
        versions = [m for m in versions if not _only_asks(m)] or versions
        # a version says a value: a line naming none ("Re: Mr Bernard Naylor") tells nothing of what held
        versions = [m for m in versions if _gives_a_value(m, asked | named, person)] or versions
        then = held_then(versions, head, when)
        if then is not None:  # what holds now is cited with it: the answer does not present it as current
            said = _as_of(then, head, members, keys, own=own, items=list(by_id.values()))
            return said, list(dict.fromkeys([then.id, head.id]))
    retractions = {m.retracted_by for m in members}
    # only where the question asks the attribute recall read the head as stating; of someone else, the one
    # attribute the question names, where nothing was read ("what instrument does Leo play?")
    theirs = None if own or head.subject or len(asked | named) != 1 else next(iter(asked | named))
    if theirs is not None:
        head = replace(head, subject=theirs)
    value = (
        _value_said(head, members, keys, person)
        # someone else's, keyed by the write path: said by the value it keyed ("Priya's employer is KPMG")
        if (own or theirs is not None or (bool(person) and bool(head.value) and _a_value(head.value or "")))
        and when is None
        and head.authority == Authority.AUTHORIZED
        and _states(head, asked | named)
        else None
    )
    attribute = attributes.by_name(head.subject or "")
    typed = attributes.for_value(value.casefold()) if value else None
    if typed is not None and typed.name in asked | named:
        attribute = typed  # "Tesco Mobile" is the network the question asks, whatever recall read the line as
    whose = "Your" if own else _whose(head, person)
    plain = f"{whose} {_label(attribute)} is {value}." if value and attribute and whose else None
    text = _said(head, keys) if head.id in retractions else plain or _stated(head, keys)
    if plain is None and head.id not in retractions:
        # names are what the history writes with a capital, and the values the inventory gives its attribute
        known = _capitalised(list(by_id.values())) | _words(" ".join(attribute.values if attribute else ()))
        text = without_history(without_past_states(text, known), head, list(by_id.values()), keys, members)
    ids = [head.id]
    text = _history(text, head, members, keys, by_id, ids, retractions, value if plain else None)
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


def _history(
    text: str,
    head: ContextItem,
    members: list[ContextItem],
    keys: set[str],
    by_id: dict[str, ContextItem],
    ids: list[str],
    retractions: set[str | None],
    value: str | None = None,
) -> str:
    """``text`` (the head said) with what the current value replaced, as past: the version it superseded
    directly, else the latest history. What waits in cold storage under it (a narrower statement it
    covers) was not replaced: it is not said. The ids said are added to ``ids``. ``value``: the value
    the head was said by, when said plainly."""
    stale = sorted(
        (
            m
            for m in members
            if m.state in _STALE and m.state != State.ARCHIVED and m.authority == head.authority
        ),
        key=lambda m: (m.superseded_by == head.id, m.time or ""),
        reverse=True,
    )
    if (
        value is not None
    ):  # an older line naming the value said is that version said before, not what it replaced
        stale = [m for m in stale if not _words(value) <= _words(own_words(m.text))]
    if stale and head.corrects and stale[0].superseded_by == head.id:
        # a mistake put right is no change of state: the old value never held
        when = f" on {head.time[:10]}" if head.time else ""
        ids.append(stale[0].id)
        return f"{text.rstrip('.')} (corrected{when}: not {head.corrects})."
    if not stale:
        # said by its value, the one its own sentence says it replaced ("swapped violin for cello") is past
        replaced = [
            w
            for w in _ended_words(own_words(_best_sentence(head.text, keys)))
            if value and not _overlaps(w, value)
        ]
        if not replaced:
            return text
        since = f"since {head.time[:10]}; " if head.time else ""
        return f"{text.rstrip('.')} ({since}before that, {' and '.join(dict.fromkeys(replaced))})."
    before = _former(stale[0], head, keys, value)
    since = f"since {head.time[:10]}; " if head.time and head.id not in retractions else ""
    gone = ", which no longer holds" if stale[0].state == State.RETRACTED else ""
    # the statement that retired it is cited with it
    ids += [i for i in (stale[0].retracted_by,) if i in by_id and i not in ids]
    ids.append(stale[0].id)
    return f"{text.rstrip('.')} ({since}before that, {before}{gone})."


def without_history(
    text: str,
    head: ContextItem,
    items: Sequence[ContextItem],
    keys: set[str],
    members: Sequence[ContextItem] = (),
) -> str:
    """``text`` (what ``head`` says) without its clauses that name only what statements made on earlier
    days named, when another clause of it names something new and the clause shares no key word with
    the question: "ditched Ironyard in April, the Forge Athletic Club has a pool" after "signed up at
    Ironyard" is said as "the Forge Athletic Club has a pool" (the old gym is history, said as such by
    the answer's "before that"), while "Sol married Amara" stays for "who is Sol married to?" however
    often Amara was named before. Names are the words the items write with a capital (most people
    write names so somewhere, if not everywhere). Who made a claim ("According to the assistant:") is
    never a clause to drop: it stays whatever the rest loses."""
    said_by = _SAID_BY.match(text)
    if said_by is not None and said_by.end() < len(text):
        rest = text[said_by.end() :]
        return said_by.group(0) + without_history(rest, head, items, keys, members)
    day = (head.time or "")[:10]
    if not day:
        return text
    if (now := _said_now(text, head, members, items, keys, day)) != text:
        return now
    said_before = {w for i in items if (i.time or "")[:10] < day for w in _words(own_words(i.text))}
    # names, and values of the inventory however they are written ("vscode", "neovim")
    names = _capitalised(items) | {w for w in said_before | _words(text) if attributes.for_value(w)}
    older = names & said_before
    new = (names - older) & _words(text)
    if not new or not older & _words(text):
        return text

    def history(clause: str) -> bool:
        said = _words(clause)
        return bool(said & older) and not said & new and not keys & content_stems(clause)

    return statements.without_clauses(text, history)


def _said_now(
    text: str,
    head: ContextItem,
    members: Sequence[ContextItem],
    items: Sequence[ContextItem],
    keys: set[str],
    day: str,
) -> str:
    """``text`` (what ``head`` says) without its clauses naming what earlier days said, beside a clause
    that says what holds now: "Nah The Gym Group is long gone, its depot now" after "signed up to The Gym
    Group" is said as "its depot now". What earlier days said is what the asked attribute's statements
    (``members``) said, and when the clause saying now names what the question asks ("now fraud team
    deploy daily" for "which team am I in?"), what any item said ("Last time in payments team …" goes).
    The words the clause saying now shares with them are no history."""
    clauses = statements.clauses_of(text)
    current = [c for c in clauses if statements.says_now(c)]
    if not current or len(current) == len(clauses):
        return text
    asked = any(keys & content_stems(c) for c in current)
    earlier = {
        w
        for m in (items if asked else members)
        if m is not head and (m.time or "")[:10] < day
        for w in _words(own_words(m.text))
    } - statements.FUNCTION
    older = earlier - {w for c in current for w in _words(c)}

    def history(clause: str) -> bool:
        if statements.says_now(clause) or not _words(clause) & older:
            return False
        main = next(iter(parse(clause).clauses), None)
        # a fragment ("…, Dr Fenwick, …") belongs to the clause beside it; a change said in the past ("We
        # moved our accounts over to Nationwide in 2022, the pensions go in there now") is what holds now
        return main is not None and not _a_past_event(main)

    return statements.without_clauses(text, history)


def _a_past_event(clause: Clause) -> bool:
    """Whether a clause tells a thing done in the past ("switched to giffgaff"), not a state that held."""
    return clause.tense == "past" and clause.verb.split()[0] not in attributes.STATE_VERBS


def without_past_states(text: str, known: Iterable[str] = ()) -> str:
    """``text`` without its clauses telling a state that held before, beside a clause saying what holds: a
    copula or "have" in the simple past with a name ("Monzo was fine back in the day tbh but starling's been
    solid for 2 yrs" is said as "starling's been solid for 2 yrs"), or with a word the history writes as one
    elsewhere (``known``, lower case: "resolve was overkill" where "DaVinci Resolve" was said). A past event is kept: a change said in
    the past ("switched to giffgaff") is what holds now. The parse reads the tense and the verb; the whole
    text is kept when what is left is no such change, no state of now and no word for now."""
    names = frozenset(known)
    cut = statements.without_clauses(text, lambda clause: _past_state(clause, names))
    if cut == text:
        return text
    holds = statements.says_now(cut) or any(
        not c.hypothetical and (c.tense != "past" or c.verb.split()[0] not in attributes.STATE_VERBS)
        for c in parse(cut).clauses
    )
    return cut if holds else text


def _past_state(clause: str, known: frozenset[str] = frozenset()) -> bool:
    """Whether a clause tells a state of something named that held in the past ("Monzo was fine", "we had
    Sky"): its main verb "be" or "have" in the simple past, not denied, with a name said and no word for
    now."""
    main = next(iter(parse(clause).clauses), None)
    if main is None or main.tense != "past" or main.negated or main.hypothetical:
        return False
    # a copula or "have" in its own past form ("was", "had"): "been on Zed …" is no past, "did an amazing job"
    # and "went with Amber" are events
    said = _words(clause)
    return (
        main.verb.split()[0] in ("be", "have")
        and bool(said & _PAST_OF_STATE)
        and not statements.says_now(clause)
        and bool(_names_in(clause) or _words(clause) & known)
    )


#: the simple past forms of "be" and "have"
_PAST_OF_STATE = frozenset({"was", "were", "had"})


#: who made a claim, as an answer says it before the claim
_SAID_BY = re.compile(r"^(?:According to [^:]{1,60}:|[^:]{1,60} said:)\s*")


def _capitalised(items: Sequence[ContextItem]) -> set[str]:
    """The words the items write with a capital past a sentence's first word, lower case: names, less
    the speakers, months and days."""
    found: set[str] = set()
    for item in items:
        for m in re.finditer(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'&-]*", own_words(item.text)):
            word = re.sub(r"['’]s$", "", m.group(0))
            if not _NOT_A_VALUE.fullmatch(word) and not _SPEAKERS.fullmatch(word):
                found.update(_words(word))
    return found


#: a name or a number in a statement: what a value usually is ("Berlin", "Lumen Health", "2019")
#: a date the write path wrote out ("on 2024-03-30")
_DATE = re.compile(r"\b(?:on |in |from |since )?\d{4}-\d{2}-\d{2}\b")
#: capitalised words and numbers that are no value: the speakers, when something was said
_NOT_A_VALUE = re.compile(
    r"(?:User|Assistant)(?:['’]s)?|I(?:['’](?:m|ve|d|ll))?|(?:19|20)\d\d|\d{1,2}|(?:Jan|Febr)uary|March|April|May|June|July|August|"
    r"September|October|November|December|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?",
    re.I,
)
_SPEAKERS = re.compile(r"\b(?:User|Assistant)(?:'s)?\b")
_NAMED = re.compile(
    r"\b(?:[A-Z][\w'&-]*(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w'&-]*)*|\d[\d.,:]*(?<![.,:])[^\W\d_]*)"
)


def _former(old: ContextItem, head: ContextItem, keys: set[str], value: str | None = None) -> str:
    """The value ``old`` gave, to name as past: its recorded value, else the names it holds that the
    current statement does not ("Berlin" from "I live in Berlin." beside "We moved to Amsterdam!") or,
    when the current value is known (``value``), that are not it ("emacs" from "using emacs at work"
    beside "ditched emacs for helix", the inventory's values however typed; of them, those of a value
    the inventory gives the attribute when any is: "Skoda Octavia", not "1.6" or "TDI"), else its
    sentence told in the past."""
    if old.value:
        return old.value
    # when it was said is no value, nor who said it ("User's Leeds" is Leeds)
    said = _SPEAKERS.sub(" , ", _DATE.sub(" ", own_words(_best_sentence(old.text, keys))))
    now = own_words(head.text).casefold()
    ended = statements.ended(own_words(head.text))  # the head names what it says stopped as the old value
    attribute = attributes.by_name(old.subject or head.subject or "")
    found = _names_in(said)
    if value is not None and attribute is not None:
        found += _values_in(said, attribute)
    names = [
        n
        for n in dict.fromkeys(found)
        if n
        and not _NOT_A_VALUE.fullmatch(n)
        and (
            not _overlaps(n, value)
            if value is not None
            else n.casefold() not in now or statements.bare(n) in ended
        )
    ]
    if attribute is not None:  # of several, those naming a value the inventory gives it ("Skoda Octavia")
        names = [n for n in names if _typed(n, attribute)] or _of_its_label(names, said, attribute)
    if names:
        return " and ".join(names)
    return _lower_first(in_the_past(_sentence(old, keys)).rstrip("."))


def _as_of(
    then: ContextItem,
    head: ContextItem,
    members: list[ContextItem],
    keys: set[str],
    *,
    own: bool = False,
    items: Sequence[ContextItem] = (),
) -> str:
    """The version that held at the asked time, said as past when it no longer holds, with when it held.
    A version known by its key and value whose chosen sentence does not name the value (a message that
    said more) is said by its value: "Your employer was Copperleaf Insurance"."""
    after = sorted(b for m in members if (b := begun(m)) > begun(then))
    if then is head or not after:
        since = f" (since {head.time[:10]})" if head.time else ""
        return f"{_stated(head, keys).rstrip('.')}{since}."
    said = without_history(_stated(then, keys), then, items, keys)  # what it replaced is no value of then
    attribute = attributes.by_name(then.subject) if then.subject else None
    if own and then.value and attribute is not None and not _words(then.value) <= _words(said):
        said = f"Your {_label(attribute)} was {then.value}"
    said = in_the_past(first_to_second(said) if then.kind == EPISODE_KIND else said).rstrip(".")
    start = f"from {then.time[:10]} " if then.time else ""
    return f"{said} ({start}until {after[0][:10]})."


def _whose(head: ContextItem, person: frozenset[str]) -> str | None:
    """Whose attribute an answer about someone else says, as the head writes them ("Leo's"; "Your
    sister's" for a relation); None when the head does not name them."""
    for word in re.findall(r"[^\W\d_][\w'’-]*", own_words(head.text)):
        bare = _POSSESSIVE.sub("", word)
        if bare.casefold() in person:
            role = attributes.relation(bare)
            return f"Your {bare.casefold()}'s" if role else f"{bare[:1].upper()}{bare[1:]}'s"
    return None


def _value_said(
    head: ContextItem, members: list[ContextItem], keys: set[str], person: frozenset[str] = frozenset()
) -> str | None:
    """The value to say the asker's own attribute by, plainly ("Your carrier is Meadow Mobile."), when the
    sentence stating it names another value beside it ("Orbit hiked the price so I jumped ship, on Meadow
    Mobile now"): said word for word, the other name would read as current too. The value is the one the
    item was keyed with, else the one name of the sentence no older statement of the subject names; None
    when neither is known or the sentence names nothing else, so it is said as it is."""
    attribute = attributes.by_name(head.subject) if head.subject else None
    if attribute is None:
        return None
    sentence = own_words(_best_sentence(own_words(head.text), keys))
    older = [
        n
        for m in members
        if (m.time or "") < (head.time or "")
        for n in _values_in(own_words(m.text), attribute)
    ]
    # the values it says stopped are old ones, however typed ("ditched ironyard, the Forge Athletic Club …"),
    # and other values beside the new one where the sentence, as said, keeps them ("goodbye warehouse" is not)
    stopped = _ended_words(statements.without_told_ends(sentence))
    # and those it says only as not holding: after a denial in their clause, or however typed ("not boots")
    older += stopped + _denied_names(sentence) + sorted(statements.denied(sentence))
    # the person asked about is no value of theirs ("Leo's swapped violin for cello")
    names = [n for n in _values_in(sentence, attribute, older) if not _words(n) & person]
    # a sentence speaking of the attribute by its noun states the name attached to it, said before or not
    # ("3 months into the Zalando job …, is it normal they ask SCHUFA")
    attached = statements.attached_values(sentence, attribute.name) or frozenset()
    attached_names = [n for n in names if _words(n) & attached]
    names = _of_its_kind(names, sentence, attribute)
    names += [w for w in stopped if not any(_overlaps(w, n) for n in names)]
    # a name, a figure or a value of the inventory ("pescatarian", "second-hand cello"); another common
    # noun ("two rescue kittens") is said in the person's words, which may name it ("…, Mochi and Sesame")
    keyed = head.value if head.value and _a_value(head.value) else None
    value = keyed if keyed and _words(keyed) <= _words(sentence) else None
    if value is None and len(attached_names) == 1:
        value = attached_names[0]
    if value is None:
        # a figure is no value of an attribute the inventory gives no figures ("a 25m pool" for a gym)
        figures = any(label in _FIGURE_LABELS for label in attribute.entities)
        new = _fullest(
            [n for n in names if not any(_overlaps(n, o) for o in older) and (figures or not n[:1].isdigit())]
        )
        # of several, the one naming a value the inventory gives the attribute ("Kia Niro EV" beside a
        # capitalised verb opening the sentence)
        typed = [n for n in new if _typed(n, attribute)]
        value = new[0] if len(new) == 1 else typed[0] if len(typed) == 1 else None
        if value is None:
            value = _named_last([n for n in names if figures or not n[:1].isdigit()], head, members)
    # the sentence names another value: a name beside it, or an older value however typed ("part-exed the
    # octavia for a Kia Niro")
    said = _words(sentence)
    others = [n for n in names if not _overlaps(n, value)] if value is not None else []
    others += [o for o in older if value is not None and _words(o) <= said and not _overlaps(o, value)]
    if value is None or not others:
        return None
    return _in_full(value, sentence, attribute)


def _in_full(value: str, sentence: str, attribute: attributes.Attribute) -> str:
    """``value`` with the common nouns after it that head its phrase, as the parse reads the sentence: the
    name of a place said with what it is ("starting at Partick library" is "Partick library", not
    "Partick"). A name before a noun of the attribute itself says which one ("my Leeds flat" is a home
    in Leeds): it stays as it is."""
    low = value.casefold().split()
    for phrase in _phrases(sentence):
        if attributes.for_noun(phrase.head) is attribute:
            continue
        said = phrase.text.split()
        for at in range(len(said) - len(low)):
            if [w.casefold() for w in said[at : at + len(low)]] != low:
                continue
            rest = said[at + len(low) :]
            if len(rest) > 2 or not all(w.isalpha() and w.islower() for w in rest):
                continue
            if phrase.head not in statements.lemmas(rest[-1]):
                continue
            return " ".join(said[at:])
    return value


def _phrases(sentence: str) -> Iterable[Phrase]:
    """Every noun phrase the parse reads in ``sentence``: subjects, objects, complements and the objects
    of prepositions, of nested clauses too."""
    for main in parse(sentence).clauses:
        clause: Clause | None = main
        while clause is not None:
            yield from (p for p in (clause.subject, clause.obj, clause.complement) if p is not None)
            yield from (p for _, p in clause.preps)
            clause = clause.nested


def _fullest(names: list[str]) -> list[str]:
    """``names`` less those another of them holds ("Toyota" beside "Toyota Corolla"): one value, said in full."""
    return [n for n in names if not any(m != n and _words(n) < _words(m) for m in names)]


def _named_last(names: list[str], head: ContextItem, members: list[ContextItem]) -> str | None:
    """Of the names the head says, the one its subject's statements named first latest of all, when one
    is ("Corolla's lovely, the Octavia never got near that" after "traded the Octavia in for a Corolla":
    the Corolla came last), None when two came together or the head alone names them."""
    said = [m for m in members if (m.time or "") <= (head.time or "")]
    first: dict[str, str] = {}
    for n in names:
        times = [m.time or "" for m in said if _words(n) <= _words(own_words(m.text))]
        first[n] = min(times, default=head.time or "")
    if len(first) < 2:
        return None
    ordered = sorted(first.items(), key=lambda kv: kv[1], reverse=True)
    return ordered[0][0] if ordered[0][1] > ordered[1][1] else None


def _of_its_kind(names: list[str], sentence: str, attribute: attributes.Attribute) -> list[str]:
    """``names`` less the places the sentence says where something is ("… a 3 bed semi in Swindon" beside
    "been with octopus" for the energy supplier), as the parse labels them, when ``attribute``'s values
    are no places by the inventory's entity labels (a name the small model labels wrongly elsewhere,
    "Voxi" a person, stays: only a place said with "in" goes)."""
    if not attribute.entities or _PLACES & set(attribute.entities) or not names:
        return names
    places = {text.casefold() for text, label in parse(sentence).entities if label in _PLACES}
    return [
        n for n in names if not (n.casefold() in places and re.search(_IN_PLACE + re.escape(n), sentence))
    ]


#: entity labels of places, and the words saying where something is ("… in Swindon")
_PLACES = frozenset({"GPE", "LOC", "FAC"})
_IN_PLACE = r"\b(?:in|on|near|around|outside)\s+(?:the\s+)?"


def _typed(name: str, attribute: attributes.Attribute) -> bool:
    """Whether ``name`` names a value the inventory gives ``attribute``: a name holding one ("Kia Niro EV"),
    or the value itself however typed ("cello"), not a kind that names the attribute ("dog", a pet)."""
    words = _words(name)
    if name[:1].isupper():
        return any(attributes.for_value(w) is attribute for w in words)
    low = name.casefold()
    return attributes.for_value(low) is attribute and attributes.for_noun(low) is not attribute


#: entity labels of values written with figures (a personal best, an age)
_FIGURE_LABELS = frozenset({"TIME", "QUANTITY", "CARDINAL", "DATE", "MONEY", "PERCENT"})


def _a_value(value: str) -> bool:
    """Whether a keyed value can be said alone: a name (with a capital, or typed in lower case with a word
    the lexicon does not know: "dr adeyemi"), a figure, or a value of the inventory."""
    last = value.split()[-1] if value.split() else ""
    return (
        value[:1].isupper()
        or value[:1].isdigit()
        or statements.typed_lower(value)
        or attributes.for_value(last) is not None
    )


def _names_in(sentence: str, known: Sequence[str] = ()) -> list[str]:
    """The names and numbers of a sentence: capitalised runs (the first word only when it is a name the
    lexicon does not know, or one of ``known``), less speakers, months and years."""
    found = []
    # a speaker is no part of a name ("on Firefox User had" is "Firefox")
    for m in _NAMED.finditer(_SPEAKERS.sub(" , ", _DATE.sub(" ", sentence))):
        name = _POSSESSIVE.sub("", m.group(0).rstrip(".,:"))
        first, _, rest = name.partition(" ")
        at_start = m.start() == 0
        if at_start and rest and first.casefold() in statements.DETERMINERS:
            name, at_start = rest, False  # "The Octavia's got a roof box": the name after the article
        if not name or _NOT_A_VALUE.fullmatch(name) or _shouted(name):
            continue
        owned = bool(_POSSESSIVE.search(m.group(0).rstrip(".,:")))
        if at_start and not (
            statements.a_name(first) or any(_overlaps(name, k) for k in known) or owned and _may_own(first)
        ):
            continue
        found.append(name)
    return list(dict.fromkeys(found))


def _may_own(word: str) -> bool:
    """Whether a sentence's first word, said as owning something ("Corolla's lovely"), is a name though the
    lexicon knows it: not a relation ("Mum's"), a day or a month, a speaker or a word of no content."""
    low = word.casefold()
    return (
        low not in statements.NOT_VALUES
        and low not in statements.FUNCTION
        and attributes.relation(low) is None
        and not _NOT_A_VALUE.fullmatch(word)
    )


def _shouted(name: str) -> bool:
    """Whether a run of capitals is a word written loud ("is NOT happening", "full AGAIN"), not a name: every
    word in capitals is one the lexicon knows (an acronym, "NHS", "EE", is not)."""
    parts = name.split()
    return all(p.isupper() and len(p) > 1 and not statements.a_name(p) for p in parts)


_POSSESSIVE = re.compile(r"['’]s$")


def _values_in(sentence: str, attribute: attributes.Attribute, known: Sequence[str] = ()) -> list[str]:
    """The names and numbers of a sentence (:func:`_names_in`), and the inventory's values of ``attribute``
    however they are typed ("ditched vscode for neovim": two editors)."""
    found = _names_in(sentence, known)
    for word in re.findall(r"[^\W_]+", sentence):
        if attributes.for_value(word.casefold()) is attribute and not any(_overlaps(word, n) for n in found):
            found.append(word)
    return found


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.casefold()))


def _overlaps(a: str, b: str) -> bool:
    """Whether two names are one ("Orbit", "Orbit Telecom"): the words of one hold the other's."""
    wa, wb = _words(a), _words(b)
    return bool(wa and wb) and (wa <= wb or wb <= wa)


def _label(attribute: attributes.Attribute) -> str:
    """What to call an attribute in an answer: a relation's role, a one-word name, else its first noun."""
    if attribute.name.startswith("relation:"):
        return attribute.name.split(":", 1)[1]
    if "_" not in attribute.name or not attribute.nouns:
        return attribute.name
    return attribute.nouns[0]


def _lower_first(text: str) -> str:
    """``text`` with its first letter in lower case, to follow "before that, "; a word written all in
    capitals ("NHS", "WREN") and "I" keep theirs."""
    first = text.split(" ", 1)[0]
    if text[:2] in ("I ", "I'") or (len(first) > 1 and first.isupper()):
        return text
    return text[:1].lower() + text[1:]


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
    if item.kind != EPISODE_KIND:
        return _sentence(item, keys)
    parts = [p.strip() for s in split_sentences(item.text) for p in _PARTS.split(s.text) if p.strip()]
    holding = [p for p in parts if not is_negated(p)]
    when = f" on {item.time[:10]}" if item.time else ""
    return f'You said{when}: "{" ".join(holding) if holding else item.text.strip()}"'


def _sentence(item: ContextItem, keys: set[str]) -> str:
    """The item's sentence sharing most key words, less the clauses that tell an old value ended (said as
    the history instead), the user's own memory in the second person."""
    text = statements.without_told_ends(_best_sentence(own_words(item.text), keys))
    text = statements.without_clauses(text, _denies)
    text = statements.without_clauses(text, _own_end)
    return _second_person(text) if item.kind != EPISODE_KIND else text


#: a clause that says something is not so ("haven't opened VS Code once", "not at Oxfam any more")
_DENIAL = re.compile(r"\b(?:not|never|no longer)\b|n['’]t\b", re.I)


def _own_end(clause: str) -> bool:
    """Whether a clause tells only that the speaker stopped something ("User gave up the Telegraph in
    2022", "ditched Ironyard"): history, said as such by the answer's "before that" when the rest of the
    sentence says what holds. Said of someone else ("Theo dropped swimming") it stays: it says whose."""
    stops = statements.clause_stops(clause)
    return bool(stops) and not statements.values(clause, "") - stops and statements.stopped_by_speaker(clause)


def _denied_names(sentence: str) -> list[str]:
    """The names a sentence denies: those after a denial in their clause ("it's Priya now not *Tom*")."""
    return [
        n
        for c in statements.clauses(sentence)
        if (denial := _DENIAL.search(c)) is not None
        for n in _names_in(c[denial.end() :])
    ]


def _denies(clause: str) -> bool:
    """Whether a clause denies what it says: it is no part of saying what holds (the rest of the sentence
    says that; a sentence that only denies is said whole). A denial reaches what follows it: a clause
    naming a value before it ("it's Priya now not Tom") says that value holds."""
    denial = _DENIAL.search(clause)
    return denial is not None and not (
        _names_in(clause[: denial.start()]) and not _VERB_DENIED.search(clause[: denial.end()])
    )


#: a denial of the clause's verb ("Menzieshill couldn't cope", "Tom is not my boss", "Arlo no longer
#: works"): it denies its subject too, where a bare "not" after a value said ("it's Priya now not Tom")
#: denies only what follows it
_VERB_DENIED = re.compile(
    r"n['’]t$|\b(?:am|is|are|was|were|be|been|do|does|did|can|could|will|would|should|has|have|had)\s+"
    r"(?:not|never|no longer)$|\b(?:no longer|never)$",
    re.I,
)


def _stated(item: ContextItem, keys: set[str]) -> str:
    """An item said as what holds: the user's own statement in the second person; a line of the assistant,
    a tool or a document with who said it, never as the user's fact."""
    if item.authority != Authority.AUTHORIZED:
        return _attributed(item, keys)
    return _sentence(item, keys)


def _attributed(item: ContextItem, keys: set[str]) -> str:
    """A lower-authority claim with who made it ("the assistant said: …", "tool calendar says: …")."""
    text = _best_sentence(own_words(item.text), keys)
    if text.lower().startswith("according to"):
        return text
    who = {"assistant": "the assistant", "user": "you"}.get(item.source or "", item.source or "a source")
    return f"{who} said: {text}"


def _second_person(text: str) -> str:
    """The user's memory as said to them: "User lives in Munich." -> "You live in Munich." (the tested
    inflection step, models/llm/rules/inflect.py)."""
    return second_person(text)


def _best_sentence(text: str, keys: set[str]) -> str:
    """The sentence of ``text`` sharing most key words (the whole text when it is one sentence)."""
    spans = split_sentences(text)
    if len(spans) <= 1:
        return text.strip()
    return max(spans, key=lambda s: len(keys & content_stems(s.text))).text
