"""The statements a question asks for: the newest of the person's own statements of the asked attribute leads.

The safety net (core/recall/safety_net.py) joins hits it can read as one attribute through the
inventory's frames and nouns. People mostly state an attribute in words no frame has ("Week one at
Tidewater Labs done", "Three weeks into Helix now"), and such a hit reads as nothing, so an older keyed
statement of the same attribute stays first. A question supplies what the hit alone lacks: which
attribute is meant. When a first-person question asks one single-valued attribute of the asker
(core/recall/questions.asked: "where do I work now?" asks works_at), a hit of the asker's own words
(authority "authorized": never an assistant's line) is taken as a statement of it when:

- it is not a request or a question, says nothing of someone else first, and tells no history;
- it names a value: a name or a number past its first word, or one of the attribute's inventory values;
- it is about what was asked: its closeness to the question (the cosine core/recall/relevance.py
  measures) is at least :data:`FLOOR` and at least :data:`SHARE` of the closest such hit's.

With the hits the truth stage keyed or read as the asked attribute, these form the attribute's
statements. The newest leads; an older statement it replaces (the newest names a value the older does
not) is ``probably_superseded``, with ``superseded_by`` naming the leader, as the safety net labels
them; then the statements go first, newest first, and the other hits after them in their order.

A first-person question of now that asks nothing the inventory names ("what do I drink instead of
coffee?") has no attribute to gather; there the person's own newer line telling what holds now ("off
coffee three weeks now, green tea only") goes before their older lines as close to the question (the
same bounds), newest first, and nothing else moves.

The reading is the question's: a list of memories asks nothing, so there the safety net's reading
stands alone. The bounds were set on the development part of the truth-natural benchmark's
histories, never its held-out part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from veramem_desktop.core import attributes
from veramem_desktop.core.recall import periods, questions, safety_net, statements
from veramem_desktop.core.recall.hits import Hit
from veramem_desktop.core.recall.query import asked_time
from veramem_desktop.core.storage.items import AUTHORITY_RANK
from veramem_desktop.core.text.terms import STOPWORDS
from veramem_desktop.core.trust.action_gate import may_act
from veramem_desktop.core.vocabulary import EPISODE_KIND, LIVE_STATES, Authority

#: the least closeness to the question a statement found this way has
FLOOR = 0.20
#: and its share of the closest such statement's closeness
SHARE = 0.60

_LIVE = LIVE_STATES
#: entity labels of values that are numbers
_NUMBER_LABELS = frozenset({"TIME", "QUANTITY", "CARDINAL", "DATE", "MONEY", "PERCENT"})


def settle(hits: list[Hit], question: str, meant: frozenset[str] = frozenset()) -> list[Hit]:
    """``hits`` with the asked attribute's statements first, newest first, older ones it replaced labelled;
    as they were when the question asks no single-valued attribute of the asker or of someone it names.
    For a question about now, the person's own lines telling what held before ("used to drink four
    coffees a day", "back when I was stuck at 1380") come after the rest: they say what no longer holds.
    ``meant``: the attribute the question asks by its meaning when its words name none (core/recall/meaning.py)."""
    return _history_last(_own_before_closer_claims(_settled(hits, question, meant), question), question)


def _own_before_closer_claims(hits: list[Hit], question: str) -> list[Hit]:
    """For a question about the person or someone they know (in the first person, or naming whom it asks
    about: "what's carla's job now?"), a claim (an assistant's or a tool's line) never comes before a
    live statement of the person's own that is closer to the question: the claim moves down past it,
    and the person's own statements keep their order (the truth order among them stands)."""
    if not questions.in_first_person(question) and not questions.person_asked(question):
        return hits
    own = [
        h
        for h in hits
        if h.authority == Authority.AUTHORIZED and h.state in _LIVE and h.closeness is not None
    ]
    remaining = {id(h): h.closeness or 0.0 for h in own}
    out: list[Hit] = []
    waiting: list[Hit] = []
    for h in hits:
        if id(h) in remaining:
            out.append(h)
            del remaining[id(h)]
            ready = [c for c in waiting if not _closer_own(c, remaining)]
            out += ready
            waiting = [c for c in waiting if c not in ready]
        elif h.authority != Authority.AUTHORIZED and _closer_own(h, remaining):
            waiting.append(h)
        else:
            out.append(h)
    return out + waiting


def _closer_own(claim: Hit, remaining: dict[int, float]) -> bool:
    return claim.closeness is not None and any(c > claim.closeness for c in remaining.values())


#: words of a question about the past ("what did I …", "what was …", "before"): history is what it asks
_ASKS_PAST = re.compile(
    r"\b(?:did|was|were|used|had|before|previously|formerly|former|old|first|ever)\b", re.I
)


def _history_last(hits: list[Hit], question: str) -> list[Hit]:
    """``hits`` with the person's own live lines telling history after the others, for a question about now.
    A line that retracted a value ("I don't work at Acme anymore") says what holds now: it stays."""
    if _ASKS_PAST.search(question) or periods_named(question):
        return hits
    retracting = {h.retracted_by for h in hits if h.retracted_by}
    own = [
        h for h in hits if h.authority == Authority.AUTHORIZED and h.state in _LIVE and h.id not in retracting
    ]
    # and a line naming a value a later line of theirs says stopped ("the paper boy brings the Telegraph"
    # before "cancelled the Telegraph"), whatever the attribute, named in the inventory or not
    gone = [
        (h.time or "", stops)
        for h in own
        if (stops := statements.ended(h.text)) and not statements.about_someone_else(h.text)
    ]
    old = {id(h) for h in own if _tells_only_past(h.text) or (gone and _stopped_later(h, gone))}
    # and what a newer statement of its subject probably replaced: history too, for a question about now
    old |= {id(h) for h in hits if h.state == safety_net.STATE}
    told = [id(h) in old for h in hits]
    return [h for h, t in zip(hits, told, strict=True) if not t] + [
        h for h, t in zip(hits, told, strict=True) if t
    ]


def _tells_only_past(text: str) -> bool:
    """Whether a line of the person's tells only what held before: said as such ("used to", "back when"),
    told as history with no word for now ("no cube anymore, it got stolen"), or saying values stopped and
    naming none that holds ("Ditched Pulsewell.")."""
    if statements.told_past(text):
        return True
    if _history_only(text):
        return True
    stopped = statements.ended(text)
    return bool(stopped) and not statements.values(text, "") - stopped


def _history_only(text: str) -> bool:
    """Whether a line tells history with no word for now ("no cube anymore"; not "Menzieshill couldn't cope
    anymore so he's at Oakwood now")."""
    return statements.tells_history(text) and not statements.says_now(text)


def periods_named(question: str) -> bool:
    """Whether the question names a time ("in March 2024", "last summer")."""
    return asked_time(question) is not None


def within(hits: list[Hit], question: str, k: int, meant: frozenset[str] = frozenset()) -> list[Hit]:
    """The first ``k`` of ``hits`` (the shortlist, in rank order, with their closeness labelled), with the
    asked attribute's leading statement in them though its words ranked it below ``k``: it is what the
    question asks, and :func:`settle` puts it first ("Sam landed a job at Quantwell" for "where does my
    brother work now?"). It takes the place of the last of the rest; no other hit moves."""
    if len(hits) <= k:
        return hits
    members = _settled_parts(list(hits), question, meant)[0]
    head = hits[:k]
    if not members or any(h is members[0] for h in head):
        return head
    return [*head[: k - 1], members[0]]


def _settled(hits: list[Hit], question: str, meant: frozenset[str]) -> list[Hit]:
    members, rest = _settled_parts(hits, question, meant)
    if (
        not members
        and questions.in_first_person(question)
        and not questions.person_asked(question)
        and not _ASKS_PAST.search(question)
        and not periods_named(question)
    ):
        return _now_first(rest)
    return members + rest


def _tells_now(text: str) -> bool:
    """Whether a line tells what holds now in a clause that asks nothing ("… it's the train now, any podcast
    recs?") and is no history ("no car anymore")."""
    return any(
        statements.says_now(c) and not statements.is_request(c) and not _history_only(c)
        for sentence in statements.sentences(text)
        if not statements.is_request(sentence)
        for c in statements.clauses_of(sentence)
    )


def _now_first(hits: list[Hit]) -> list[Hit]:
    """For a question of now that asks no attribute the inventory names: of the person's own live lines
    close to the question, one saying what holds now ("off coffee, green tea only now") goes before the
    older ones close to it, newest first; every other hit keeps its place."""
    own = [
        h
        for h in hits
        if h.authority == Authority.AUTHORIZED and h.state in _LIVE and h.closeness is not None
    ]
    if not own:
        return hits
    bound = max(FLOOR, SHARE * max(h.closeness or 0.0 for h in own))
    close = [h for h in own if (h.closeness or 0.0) >= bound]
    if len(close) < 2:
        return hits
    now = [h for h in close if _tells_now(h.text)]
    first = close[0]
    leading = sorted(
        (h for h in now if (h.time or "") > (first.time or "")), key=lambda h: h.time or "", reverse=True
    )
    if not leading:
        return hits
    slots = [i for i, h in enumerate(hits) if any(h is c for c in close)]
    moved = leading + [h for h in close if not any(h is m for m in leading)]
    out = list(hits)
    for i, h in zip(slots, moved, strict=True):
        out[i] = h
    return out


def _settled_parts(hits: list[Hit], question: str, meant: frozenset[str]) -> tuple[list[Hit], list[Hit]]:
    """The asked attribute's statements, ordered as they lead, and the other hits in their order; no
    statements and every hit as it came when the question asks none (or the order is its own: values side
    by side, where only a told end replaces one)."""
    wanted = questions.asked(question) or frozenset(a for a in meant if not attributes.is_multi_valued(a))
    person, wanted = _whose(questions.person_asked(question), wanted)
    # the names the hits give the person asked by relation ("my brother Sam": "Sam landed a job" is his)
    person |= {n for h in hits for n in questions.names_given(h.text, person)}
    if person and wanted:
        members = _mentions(hits, person, numbers=_numeric(wanted), wanted=wanted)
    elif person:  # a thing of theirs the inventory has no single-valued name for: only a told end replaces
        return [], _ends_first(hits, _mentions(hits, person, numbers=True), person)
    elif not questions.in_first_person(question):
        return [], hits
    elif wanted:
        members = _members(hits, wanted, numbers=_numeric(wanted))
    else:
        nouns = questions.asked_nouns(question)
        named = questions.attributes_of_nouns(nouns) or meant
        members = _by_noun(hits, nouns, named, someone=questions.asks_someone(question))
        if any(attributes.is_multi_valued(a) for a in named):
            if len(named) == 1:  # a statement naming a value of the one attribute asked speaks of it
                (name,) = named
                for h, values in members:
                    if not h.subject and {v for v in values - nouns if statements.value_of(v) == name}:
                        h.subject = name
            return [], _ends_first(hits, members)  # values side by side: only a told end replaces one
        # what the write path keyed to the noun is the attribute asked: a member keyed to another is its statement
        wanted = frozenset(
            attributes.canonical(h.subject)
            for h, _ in members
            if h.subject and _keyed_to(h.subject, nouns, named)
        )
    if not members:
        return [], hits
    leads = {id(_label(part, hits)) for part in _by_attribute(members, wanted)}
    chosen = {id(h) for h, _ in members}
    ordered = sorted(
        members,
        key=lambda m: (
            m[0].state in _LIVE,
            _rank(m[0]),
            id(m[0]) in leads,
            bool(m[1]),  # a lead naming the value before one that names none
            _day(m[0]),
            m[0].time or "",
            -_place(m[0]),
            m[0].kind != EPISODE_KIND,
        ),
        reverse=True,
    )
    return [h for h, _ in ordered], [h for h in hits if id(h) not in chosen]


def _by_noun(
    hits: Sequence[Hit], nouns: frozenset[str], named: frozenset[str], *, someone: bool = False
) -> list[tuple[Hit, frozenset[str]]]:
    """For a thing no single-valued attribute of the inventory names ("who is my landlord?", "which
    language am I learning?"), the person's own live hits that say the question's noun, a value of the
    attribute it names ("Korean") or were keyed to it, and name a value; and, when some do, those as close
    to the question as :func:`_members` asks that name a value in other words ("switched to Agnieszka"
    for "who's our childminder now?")."""
    if not nouns and not named:
        return []
    found = []
    loose: list[tuple[Hit, frozenset[str], float]] = []
    for h in hits:
        if (
            h.state not in _LIVE
            or h.authority != Authority.AUTHORIZED
            or (h.about or "user").casefold() != "user"
        ):
            continue
        keyed = h.subject is not None and _keyed_to(h.subject, nouns, named)
        if not (keyed or questions.says_noun(h.text, nouns) or questions.gives_value_of(h.text, named)):
            # as close to the question as :func:`_members` asks, naming a value, and keyed to nothing else
            close = h.closeness is not None and not _keyed_elsewhere(h)
            if close and (values := _plain_values(h.text, named, numbers=True, someone=someone)):
                loose.append((h, values, h.closeness or 0.0))
            continue
        values = _plain_values(h.text, named, numbers=True, someone=someone) | (
            _own_value(h) if keyed else frozenset()
        )
        if values:
            found.append((h, values))
    if not found:  # the noun said or keyed comes first: close words alone state nothing of it
        return found
    best = max([c for _, _, c in loose] + [h.closeness or 0.0 for h, _ in found])
    bound = max(FLOOR, SHARE * best)
    found += [(h, v) for h, v, c in loose if c >= bound]
    return found + _named_after_a_kind(hits, found, named)


def _keyed_to(subject: str, nouns: frozenset[str], named: frozenset[str]) -> bool:
    """Whether a key's subject is what the question names: an attribute of its nouns, or a subject one of its
    nouns names ("favourite" for "what's our favourite restaurant?")."""
    return attributes.canonical(subject) in named or bool(nouns & set(re.split(r"[:_\s]+", subject.lower())))


def _whose(person: frozenset[str], wanted: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Who is asked about, and what: a relation naming the person ("where does my mum live?") is not
    also the attribute asked."""
    return person, wanted - {role for w in person if (role := questions.relation_of(w)) is not None}


def _mentions(
    hits: Sequence[Hit], person: frozenset[str], *, numbers: bool, wanted: frozenset[str] = frozenset()
) -> list[tuple[Hit, frozenset[str]]]:
    """The person's own hits that speak of the person a question names ("where does my brother Dario
    work?") and name a value besides that person: those the write path keyed to an attribute of ``wanted``,
    and the others close to the question as :func:`_members` requires."""
    keyed: list[tuple[Hit, frozenset[str]]] = []
    loose: list[tuple[Hit, frozenset[str], float]] = []
    told = _told_of(hits, person)
    for h in hits:
        if h.state not in _LIVE and h.state != safety_net.STATE:
            continue
        if h.authority != Authority.AUTHORIZED or h.closeness is None or id(h) not in told:
            continue
        if statements.is_request(h.text) or _history_only(h.text):
            continue
        values = _values_of(statements.others_clauses(h.text), frozenset(), numbers) - person
        # keyed to what is asked, or read as stating it (of someone else: here, the person asked about)
        read = statements.read(h.text)
        stating = read is not None and bool(wanted & set(read.attributes))
        if values and (stating or h.subject is not None and attributes.canonical(h.subject) in wanted):
            keyed.append((h, values))
        elif values:
            loose.append((h, values, h.closeness))
    # as close as the closest of all, keyed ones too
    best = max([c for _, _, c in loose] + [h.closeness or 0.0 for h, _ in keyed], default=0.0)
    bound = max(FLOOR, SHARE * best)
    return keyed + [(h, v) for h, v, c in loose if c >= bound]


#: words a statement opens with that speak of someone already named ("He's got a new pup")
_PRONOUNS = frozenset({"he", "she", "they", "he's", "she's", "they're", "they've", "his", "her", "their"})


def _told_of(hits: Sequence[Hit], person: frozenset[str]) -> set[int]:
    """The hits (by ``id``) that speak of the person ``person`` names: those that name them, and those
    opening with a pronoun ("He's got a new pup") said in a message that names them (a hit of the same
    message time and session does): the pronoun speaks of the person the message named."""
    naming = {id(h) for h in hits if questions.mentions(h.text, person)}
    messages = {(h.time, h.session_id) for h in hits if id(h) in naming and h.time}
    for h in hits:
        first = statements.WORD.findall(h.text[:40])[:1]
        opens = bool(first) and first[0].lower().replace("’", "'") in statements.typed_bare(_PRONOUNS)
        if opens and h.time and (h.time, h.session_id) in messages:
            naming.add(id(h))
    return naming


def _ends_first(
    hits: list[Hit], members: list[tuple[Hit, frozenset[str]]], person: frozenset[str] = frozenset()
) -> list[Hit]:
    """``hits`` with ``members`` first, where a newer value does not replace an older one (values side by
    side, or a thing the inventory has no single-valued name for): an older live statement is replaced
    only when a later statement of the same person's says a value it names stopped ("Biscuit passed
    away", "Theo dropped swimming"). Such a statement of that person (whoever said it) is
    ``probably_superseded`` by the newest member still holding, in its subject; the members holding lead,
    newest first. What a named person is asked about is one subject (its versions answer "what was Ana
    doing in May?"); values side by side stay subjects of their own."""
    told = _told_of(hits, person) if person else set()
    own = [h for h in hits if h.state in _LIVE and h.authority == Authority.AUTHORIZED]
    if person:  # their ends, said by the person whose memory this is
        own = [h for h in own if id(h) in told]
    gone = [
        (h.time or "", stops)
        for h in own
        if (stops := statements.ended(h.text)) and (person or not statements.about_someone_else(h.text))
    ]
    stopped = {id(h) for h, _ in members if _stopped_later(h, gone)}
    holding = [(h, v) for h, v in members if id(h) not in stopped and v - statements.ended(h.text)]
    lead = max(holding, key=_newest_naming, default=(None,))[0]
    if lead is not None:
        group = lead.group or lead.id
        lead.group = group
        for h, _ in members if person else ():
            h.group = group  # what a person is asked about is one subject: its versions answer a time
        for h in hits:
            if h is lead or h.state not in _LIVE or not _stopped_later(h, gone):
                continue
            if (id(h) in told) if person else (id(h) in stopped or not statements.about_someone_else(h.text)):
                h.state = safety_net.STATE
                h.superseded_by = lead.id
                h.actionable = may_act(h.authority, h.state)
                h.group = group
    keep = {id(h) for h, _ in holding}
    first = [h for h, _ in sorted((m for m in members if id(m[0]) in keep), key=_newest_naming, reverse=True)]
    rest = sorted((h for h, _ in members if id(h) not in keep), key=_newest, reverse=True)
    chosen = {id(h) for h, _ in members}
    return first + rest + [h for h in hits if id(h) not in chosen]


def _newest(h: Hit) -> tuple[str, bool]:
    return (h.time or "", h.kind != EPISODE_KIND)


def _newest_naming(member: tuple[Hit, frozenset[str]]) -> tuple[str, bool, bool]:
    """The newest first and, of one message's, one naming more than a kind of the thing ("Cockapoo called
    Pesto" before "We got a puppy!!")."""
    h, values = member
    return (*_newest(h), any(attributes.for_noun(v) is None for v in values))


def _stopped_later(h: Hit, gone: list[tuple[str, frozenset[str]]]) -> bool:
    """Whether a statement later than ``h`` says a value ``h`` names stopped (in any of its word forms:
    "swims" for a stopped "swimming")."""
    said = {
        form for w in statements.WORD.findall(h.text[:400]) for form in statements.lemmas(statements.bare(w))
    }
    return any(
        when > (h.time or "") and said & {f for s in stops for f in statements.lemmas(s)}
        for when, stops in gone
    )


def _numeric(wanted: frozenset[str]) -> bool:
    """Whether a value of one of ``wanted`` may be a number (a personal best, an age), by the inventory."""
    return any(
        label in _NUMBER_LABELS
        for name in wanted
        if (attr := attributes.by_name(name)) is not None
        for label in attr.entities
    )


def _members(
    hits: Sequence[Hit], wanted: frozenset[str], *, numbers: bool
) -> list[tuple[Hit, frozenset[str]]]:
    """The hits stating one of ``wanted`` of the asker, with the values each names."""
    keyed: list[tuple[Hit, frozenset[str]]] = []
    named: list[tuple[Hit, frozenset[str]]] = []
    loose: list[tuple[Hit, frozenset[str], float]] = []
    for h in hits:
        if h.state not in _LIVE and h.state != safety_net.STATE:
            continue
        if (h.about or "user").casefold() != "user":
            continue
        if h.subject is not None and attributes.canonical(h.subject) in wanted:
            keyed.append((h, _values_of(h.text, wanted, numbers) | _own_value(h)))
            continue
        if h.authority != Authority.AUTHORIZED or h.closeness is None or _keyed_elsewhere(h):
            continue  # a claim, or a memory the write path keyed to another attribute
        values = _plain_values(h.text, wanted, numbers)
        if not values:
            continue
        if _names(h.text, wanted):
            named.append((h, values))  # read as the asked attribute among others, or naming it by its noun
        elif h.subject is None and not _another_field(h.text, wanted):
            loose.append((h, values, h.closeness))
    best = max((c for _, _, c in loose), default=0.0)
    bound = max(FLOOR, SHARE * best)
    found = keyed + named + [(h, v) for h, v, c in loose if c >= bound]
    found += _anchored(hits, found, wanted, numbers)
    return found + _figures_told_with(hits, found, wanted) + _named_after_a_kind(hits, found, wanted)


def _named_after_a_kind(
    hits: Sequence[Hit], found: list[tuple[Hit, frozenset[str]]], wanted: frozenset[str]
) -> list[tuple[Hit, frozenset[str]]]:
    """The person's own lines naming a name in the message of a statement that names only a kind of the
    asked thing ("We got a puppy!!" then "Cockapoo called Pesto, 10 wks."): a message is one telling, and
    the name is the one its kind was given."""
    kinds: dict[tuple[str, str | None], str] = {}
    for h, values in found:
        named = {a.name if (a := attributes.for_noun(v)) is not None else None for v in values}
        if h.time and len(named) == 1 and (name := next(iter(named))) in wanted:
            kinds[_message(h)] = name
    out = []
    for h in _told_beside(hits, found, set(kinds)):
        if statements.is_request(h.text) or _history_only(h.text):
            continue
        # a line opening on the name is of the thing named, not someone else's ("Cockapoo called Pesto")
        values = (
            _values_of(h.text, wanted, numbers=False) - statements.ended(h.text) - statements.denied(h.text)
        )
        if any(attributes.for_noun(v) is None for v in values):
            h.subject = h.subject or kinds[_message(h)]  # it states what its message named the kind of
            out.append((h, values))
    return out


def _figures_told_with(
    hits: Sequence[Hit], found: list[tuple[Hit, frozenset[str]]], wanted: frozenset[str]
) -> list[tuple[Hit, frozenset[str]]]:
    """Where every value of the asked attribute is a figure (a personal best, a weight): the person's own
    lines said in the message of a statement of it that name a figure ("New PB by four minutes." then
    "1:56:40 at the Harbourside Half"): a message is one telling, and its figure is the value."""
    if not _only_numbers(wanted):
        return []
    told = {_message(h) for h, _ in found if h.time}
    return [
        (h, values)
        for h in _told_beside(hits, found, told)
        if (values := _plain_values(h.text, wanted, numbers=True))
    ]


def _told_beside(
    hits: Sequence[Hit], found: list[tuple[Hit, frozenset[str]]], messages: set[tuple[str, str | None]]
) -> list[Hit]:
    """The person's own live lines of ``messages`` not among ``found`` and keyed to no other attribute."""
    taken = {id(h) for h, _ in found}
    return [
        h
        for h in hits
        if id(h) not in taken
        and _message(h) in messages
        and h.state in _LIVE
        and not _keyed_elsewhere(h)
        and h.authority == Authority.AUTHORIZED
        and (h.about or "user").casefold() == "user"
    ]


def _anchored(
    hits: Sequence[Hit], found: list[tuple[Hit, frozenset[str]]], wanted: frozenset[str], numbers: bool
) -> list[tuple[Hit, frozenset[str]]]:
    """The person's own statements that name a value a keyed statement of the attribute gave, or one a
    statement of it said stopped, and a name besides ("Ironclad doubled the fees so I jumped over to
    Pulsefit"): a change told against the old value, in words no frame has and too short to be close to
    the question."""
    # the values keyed statements gave, and those a statement of the attribute says stopped
    known = (
        frozenset()
        .union(*(_words(h.value) for h, _ in found if h.value and h.subject))
        .union(*(statements.ended(h.text) for h, _ in found))
    )
    if not known:
        return []
    taken = {id(h) for h, _ in found}
    out = []
    for h in hits:
        if id(h) in taken or h.state not in _LIVE or h.authority != Authority.AUTHORIZED:
            continue
        if (h.about or "user").casefold() != "user" or _keyed_elsewhere(h):
            continue
        if not known & _words(h.text):
            continue
        values = _plain_values(h.text, wanted, numbers)
        if values - known:
            out.append((h, values | (known & _words(h.text))))
    return out


def _says_change(text: str) -> bool:
    """Whether ``text`` says a change or states an attribute: a verb of change of the inventory's frames
    (not one only of state: "is", "do", "go"), or words recall reads as stating one."""
    said = {lemma for w in statements.WORD.findall(text[:400]) for lemma in statements.lemmas(w.lower())}
    return bool(said & _CHANGE_VERBS) or statements.read(text) is not None


#: the single-word verbs of change of the inventory's frames, and the words a change is told against the
#: old value with ("on Meadow Mobile *now*", "the *new* place", "Lowmoor *instead*")
_CHANGE_VERBS = frozenset(
    v
    for v in attributes.verbs() | attributes.SWITCH_VERBS
    if " " not in v and v not in attributes.STATE_VERBS
) | {"now", "new", "instead"}


def _words(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in statements.WORD.findall(text))


def _names(text: str, wanted: frozenset[str]) -> bool:
    """Whether ``text`` names one of ``wanted`` by the inventory's own words ("the Payments *team*",
    "Kestrel *Bank*"), or its words read as stating one of them among others."""
    found = statements.read(text)
    if found is not None and not found.other and wanted & set(found.attributes):
        return True
    return bool(wanted & statements.named(text))


def _another_field(text: str, wanted: frozenset[str]) -> bool:
    """Whether a labelled line gives a field other than the asked attribute ("Policy number:
    HOM-44817263", "Subject: Notice of Termination" for "who's my manager now?"): its names are that
    field's value. A label saying a word of the attribute's description or nouns gives it ("Landlord: Dan
    Whitaker", "Provider: Vodafone" for the internet provider)."""
    label = statements.field(text)
    if label is None:
        return False
    said = {f for w in statements.WORD.findall(label) for f in statements.lemmas(w.lower())}
    return not (said - statements.FUNCTION - STOPWORDS) & _described(wanted)


@lru_cache(maxsize=256)
def _described(wanted: frozenset[str]) -> frozenset[str]:
    """The word forms of the ``wanted`` attributes' descriptions and nouns (read once per question's
    attributes, not per hit)."""
    return frozenset(
        f
        for name in wanted
        if (attr := attributes.by_name(name)) is not None
        for w in statements.WORD.findall(" ".join([attr.description, *attr.nouns]))
        for f in statements.lemmas(w.lower())
    )


def _plain_values(
    text: str, wanted: frozenset[str], numbers: bool, *, someone: bool = False
) -> frozenset[str]:
    """The values a statement read as no attribute names, when it is the speaker's own statement of now:
    empty for a request, a question, history told with no word for now, or words about someone else; the
    names it says stopped or only as not holding are left out. Where the attribute asked is
    a person (a hairdresser, a manager, a landlord), a line opening on a name speaks of the value itself
    ("Mags at Curl Up & Dye did an amazing job" for "who does my hair now?"), not of someone else's life;
    so it is when the question asks who (``someone``: "who's my head chef?" of "Tasha (head chef) wants …")."""
    if statements.is_request(text) or _history_only(text):
        return frozenset()
    opens = (someone or _person_valued(wanted)) and _opens_on_a_name(text)
    if statements.about_someone_else(text) and not opens:
        return frozenset()
    # the name it opens on is one (a first word is no value otherwise: its capital may be the sentence's)
    first = frozenset({statements.bare(statements.WORD.findall(text[:40])[0])}) if opens else frozenset()
    # history told beside what holds now ("now goes to Lloyds, not boots anymore")
    return (_values_of(text, wanted, numbers) | first) - statements.ended(text) - statements.denied(text)


def _person_valued(wanted: frozenset[str]) -> bool:
    """Whether every attribute of ``wanted`` may have a person as its value, by the inventory's entity labels
    ("where do we live?" asks a home too, never a person)."""
    found = [attributes.by_name(name) for name in wanted]
    return bool(found) and all(attr is not None and "PERSON" in attr.entities for attr in found)


def _opens_on_a_name(text: str) -> bool:
    """Whether ``text`` opens on a person's name, not a pronoun or a relation ("Mags did …", not "My
    brother …" nor "She …")."""
    first = statements.WORD.findall(text[:40])[:1]
    if not first:
        return False
    name = statements.bare(first[0])
    return statements.a_name(first[0]) and attributes.relation_of_any_number(name) is None


def _values_of(text: str, wanted: frozenset[str], numbers: bool) -> frozenset[str]:
    """The names (and numbers, when a value may be one) ``text`` holds, and inventory values of ``wanted``;
    of a statement that reads as one asked attribute said by its noun alone, the names attached to the noun
    (statements.attached_values: "from the new place to Temple Meads" names no home)."""
    found: set[str] = set(statements.values(text, ""))
    for name in wanted:
        found.update(statements.values(text, name))
    read = statements.read(text)
    one = read is not None and len(read.attributes) == 1 and read.attributes[0] in wanted
    if read is not None and one and statements.attached_values(text, read.attributes[0]) is not None:
        found = set(read.values)
    if _only_numbers(wanted):  # a time or a weight is the value: a name beside it ("the Harriers") is not
        return frozenset(v for v in found if v[:1].isdigit())
    return frozenset(v for v in found if numbers or not v[:1].isdigit())


def _only_numbers(wanted: frozenset[str]) -> bool:
    """Whether every value of ``wanted`` is a number, by the inventory (a personal best, an age)."""
    kinds = [attr.entities for name in wanted if (attr := attributes.by_name(name)) is not None]
    return bool(kinds) and all(labels and set(labels) <= _NUMBER_LABELS for labels in kinds)


def _keyed_elsewhere(h: Hit) -> bool:
    """Whether the write path keyed ``h`` with a value to an attribute of the inventory (another than the one
    asked, where it is called). A key the inventory has no attribute for ("iphone_video" from "my iPhone
    13 video is sooo much better") says nothing of which attribute the line states: it is read as unkeyed."""
    return (
        bool(h.subject and h.value) and attributes.by_name(attributes.canonical(h.subject or "")) is not None
    )


def _own_value(h: Hit) -> frozenset[str]:
    return frozenset({h.value.casefold()}) if h.value else frozenset()


_ORDER = {a.name: i for i, a in enumerate(attributes.ATTRIBUTES)}


def _place(h: Hit) -> int:
    """Where the inventory lists the attribute ``h`` states: of one message, "where do I work?" is answered
    by the employer before the occupation."""
    return _ORDER.get(attributes.canonical(h.subject or ""), len(_ORDER))


def _rank(h: Hit) -> int:
    return AUTHORITY_RANK.get(h.authority, 0)


def _by_attribute(
    members: list[tuple[Hit, frozenset[str]]], wanted: frozenset[str]
) -> list[list[tuple[Hit, frozenset[str]]]]:
    """The members by the attribute each states: a keyed or read one by its own, the others (read as
    nothing) by the attribute of the newest keyed one, else the asked attribute the inventory lists
    first ("where do I work?": the employer before the occupation). Each is labelled as that attribute,
    what it speaks about, so the answer matches on it; statements of two attributes never replace each
    other."""
    for h, _ in members:
        if wanted and h.subject and attributes.canonical(h.subject) not in wanted:
            # read as another attribute too, but a statement of the asked one here: the value its key gave is
            # that other attribute's ("Hannah", the sister), never this one's
            h.subject, h.value = None, None
    keyed = sorted((m for m in members if m[0].subject), key=lambda m: m[0].time or "", reverse=True)
    main: str | None = None
    if keyed:
        main = attributes.canonical(keyed[0][0].subject or "")
    elif wanted:
        main = min(wanted, key=lambda a: (_ORDER.get(a, len(_ORDER)), a))
    parts: dict[str, list[tuple[Hit, frozenset[str]]]] = {}
    for h, values in members:
        h.subject = h.subject or main  # a thing the inventory has no name for stays unnamed
        parts.setdefault(attributes.canonical(h.subject or ""), []).append((h, values))
    return list(parts.values())


def _typed(member: tuple[Hit, frozenset[str]]) -> bool:
    """Whether a statement names a value the inventory gives its attribute ("Kia" a car), not only names that
    may be anything ("car insurance moved to Churchill")."""
    h, values = member
    return any(statements.value_of(v) == attributes.canonical(h.subject or "") for v in values)


def _message(h: Hit) -> tuple[str, str | None]:
    """The message ``h`` was said in: its time and session."""
    return (h.time or "", h.session_id)


def _day(h: Hit) -> str:
    return (h.time or "")[:10]


def _said_before(values: frozenset[str], h: Hit, members: list[tuple[Hit, frozenset[str]]]) -> bool:
    """Whether every value ``h`` names was named by an older statement of its subject."""
    older = frozenset().union(*(v for o, v in members if (o.time or "") < (h.time or "")))
    return bool(values) and values <= older


def _label(members: list[tuple[Hit, frozenset[str]]], hits: Sequence[Hit] = ()) -> Hit | None:
    """Label one attribute's statements and return the one that leads: of the live statements of the
    highest authority (a claim never leads the person's own words), those naming a value no older one
    named are changes. The newest day's changes, and later statements naming their values again, lead:
    a keyed one first, then the one whose value began last, then the latest. An older live statement whose
    values the leaders do not name is replaced, and so is one that names only values said before and none
    of the leaders' (it tells of an old value). ``hits``: every hit, for the person's lines told beside the
    statements."""
    live = [(h, v) for h, v in members if h.state in _LIVE]
    if len(live) < 2:
        return live[0][0] if live else None
    top = max(_rank(h) for h, _ in live)
    live = [(h, v) for h, v in live if _rank(h) == top]
    # a statement naming only values said before ("the Fabia went to my nephew", "the senior engineer part
    # is over") tells of an old value, not a change; one naming no value ("the new flat is cold") neither
    # nor a value it says stopped ("walked out of Halcyon for good"); a value a later statement says stopped
    # holds no more
    stops = {id(h): statements.ended(h.text) for h, _ in live}
    gone = [(h, stops[id(h)]) for h, _ in live if stops[id(h)]]
    holding = {id(h): v - stops[id(h)] for h, v in live}
    ended_later = {
        id(h)
        for h, _ in live
        if any((e.time or "") > (h.time or "") and stop & _words(h.text) for e, stop in gone)
    }
    # where the write path keyed a value, a later statement it did not key changes it only by saying so: in
    # a word of change, by the attribute's own words, or told against the keyed value ("Ironclad doubled the
    # fees so I jumped over to Pulsefit"); "The Town Moor is right there" after "the new flat's in Gosforth"
    # names a place, not a new home
    keyed = frozenset().union(*(_words(h.value) for h, _ in live if h.value))
    # a message is one telling: a line of it says a change when another of its lines of the attribute does
    # ("Trading in the Civic for something bigger." then "Picking up a RAV4 on April 9")
    told_change = {
        _message(h) for h, _ in live if h.time and (keyed & _words(h.text) or _says_change(h.text))
    }
    # and so does one in which a line of the person's says a keyed value ended ("Trading in the Civic for
    # something bigger." beside "Picking up a RAV4")
    told_change |= {
        _message(h)
        for h in hits
        if h.time and h.authority == Authority.AUTHORIZED and keyed & statements.ended(h.text)
    }
    changes = [
        (h, v)
        for h, v in live
        if holding[id(h)]
        and not _said_before(holding[id(h)], h, members)
        and id(h) not in ended_later
        and (not keyed or bool(h.value) or _message(h) in told_change)
    ]
    # statements of one day are one telling (a message and the replies around it)
    newest = max(_day(h) for h, _ in changes or live)
    heads = [(h, v) for h, v in changes or live if _day(h) == newest]
    said_now = frozenset().union(*(v for _, v in heads))
    # a later statement naming the new value again ("first weeks at Ember") says it as of its own day
    again = [(h, v) for h, v in live if _day(h) > newest and v & said_now]
    # of them, a statement the write path keyed with a value leads one it did not, then one naming a value
    # the inventory gives the attribute, then the one whose value began last (a plan holds from the day it
    # names), then the latest
    lead = max(
        heads + again,
        key=lambda m: (
            bool(m[0].value),
            _typed(m),
            periods.begun(m[0].text, m[0].time),
            m[0].time or "",
            m[0].kind != EPISODE_KIND,
            m[0].score,
        ),
    )[0]
    group = lead.group or lead.id
    for h, _ in members:
        h.group = group  # one subject: the answer states its newest statement once, the rest as past
    leading = {id(h) for h, _ in heads + again}
    for h, values in live:
        if id(h) in leading:
            continue
        replaced = (_day(h) < newest and bool(said_now - values)) or id(h) in ended_later
        told_of_old = bool(holding[id(h)]) and (h, values) not in changes and not values & said_now
        if replaced or told_of_old:
            h.state = safety_net.STATE
            h.superseded_by = lead.id
            h.actionable = may_act(h.authority, h.state)
    return lead
