"""Rule-based extraction: one candidate per sentence that states something.

Each kept sentence (see :mod:`.smalltalk`) is quoted exactly as written, so the engine's
quote check always finds it; it is classified as a preference, an event or a fact by
patterns, given a subject/predicate/value when it has a simple shape (see :mod:`.keys`),
and rewritten in the third person (see :mod:`.wording`) with its relative dates
resolved against the time of its own message. A document's "I" is its author (a byline, else
"the document's author"); a named speaker's statement that does not name them says who said it;
a statement without a key that replies to another speaker's question carries that question.
Sentences that give nothing are returned with the reason (:func:`extract_with_skips`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from veramem_desktop.core import attributes
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.llm import Candidate, Message
from veramem_desktop.core.text.explicit_dates import normalise_explicit_dates
from veramem_desktop.core.text.relative_dates import resolve_relative_dates
from veramem_desktop.core.text.time_values import parse_time
from veramem_desktop.core.vocabulary import Kind
from veramem_desktop.models.llm.rules import drafts
from veramem_desktop.models.llm.rules.keys import (
    NO_KEY,
    NOT_NAMES,
    Keyed,
    about_user,
    addressed,
    labelled,
    labelled_wording,
    named_in_passing,
    read_all,
    topic_of,
)
from veramem_desktop.models.llm.rules.lexicon import ADVERBS, IRREGULAR_PAST, NOT_PAST, TIME
from veramem_desktop.models.llm.rules.parse import clauses_after_pause, parse, warm
from veramem_desktop.models.llm.rules.requests import statements_in
from veramem_desktop.models.llm.rules.retraction_clauses import split_after_retraction
from veramem_desktop.models.llm.rules.smalltalk import TOO_SHORT, skip_reason
from veramem_desktop.models.llm.rules.text import Span, split_clauses, split_sentences
from veramem_desktop.models.llm.rules.wording import resolve_leading_pronoun, third_person

# --- kind -------------------------------------------------------------------------------------

_PREFERENCE = re.compile(
    r"\b(?:I|we)\s+(?:" + ADVERBS + r"\s+)*(?:like|love|prefer|enjoy|adore|hate|dislike|detest|can't stand|"
    r"cannot stand|don't (?:really )?(?:like|love|enjoy)|do not (?:like|love|enjoy)|would rather)\b"
    r"|\b(?:I'd|we'd) rather\b|\b(?:my|our) (?:absolute |all-time )?favou?rite\b"
    r"|\b(?:I'm|I am|we're) (?:a (?:big |huge )?fan of|not a fan of|(?:really |not )?into)\b",
    re.IGNORECASE,
)
_PAST_ACTION = re.compile(
    r"\b(?:I|we|he|she|they|[A-Z][a-z]+)\s+(?:just\s+|finally\s+|recently\s+|also\s+|actually\s+)?"
    r"(?P<verb>[a-z]+)\b"
)
_FUTURE = re.compile(r"\b(?:will|'ll|going to|gonna|(?:am|'m|are|'re|is)\s+\w+ing)\b", re.IGNORECASE)


def _has_past_action(sentence: str) -> bool:
    for m in _PAST_ACTION.finditer(sentence):
        verb = m["verb"].lower()
        if verb in IRREGULAR_PAST or (verb.endswith("ed") and len(verb) > 3 and verb not in NOT_PAST):
            return True
    return False


def classify(sentence: str) -> Kind:
    """preference / event / fact, by the patterns in the module docstring."""
    if _PREFERENCE.search(sentence):
        return Kind.PREFERENCE
    if TIME.search(sentence) and (_has_past_action(sentence) or _FUTURE.search(sentence)):
        return Kind.EVENT
    return Kind.FACT


# --- importance -------------------------------------------------------------------------------

_HEALTH = re.compile(
    r"\b(?:allerg\w*|diagnos\w*|medic\w*|disease|condition|pregnan\w*|surgery|hospital\w*|asthma|diabet\w*|"
    r"epilep\w*|blood|pain|therapy|disabilit\w*)\b",
    re.IGNORECASE,
)
_IDENTITY = re.compile(
    r"\b(?:name|birthday|born|live|lives|living|moved|work|works|job|married|wife|husband|partner|kids?|"
    r"children|son|daughter|address|phone|email|e-mail|family|mother|father|parents)\b",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(r"\b(?:important|remember|never|always|must|deadline)\b", re.IGNORECASE)


def importance(sentence: str, kind: Kind) -> float:
    score = 0.5 + {Kind.PREFERENCE: 0.1, Kind.EVENT: 0.05}.get(kind, 0.0)
    if _HEALTH.search(sentence):
        score += 0.3
    if _IDENTITY.search(sentence):
        score += 0.15
    if _EMPHASIS.search(sentence):
        score += 0.1
    return round(min(1.0, score), 2)


# --- the task ---------------------------------------------------------------------------------

_ROLE_SPEAKER = {"user": "User", "assistant": "Assistant", "system": "System"}
# Roles whose "you" is the user: an assistant or a tool answers the user, a document is read by them.
# A system prompt's "you" is the assistant, so it stays as written.
_ADDRESSES_USER = frozenset({"assistant", "tool", "document"})
# Roles whose second-person statements give a key about the user ("You live in Berlin").
_KEYS_ABOUT_ADDRESSEE = frozenset({"assistant", "tool"})
#: who "I" is in a document whose author it does not name: never the file
DOCUMENT_AUTHOR = "the document's author"
# A byline in a document: "Author: Ana Lopez", "By Ana Lopez", "Written by Ana Lopez".
_BYLINE = re.compile(
    r"^\s*(?i:author|written by|by|from)\s*[:\-]?\s*(?P<name>[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2})\s*$",
    re.MULTILINE,
)
#: a Markdown heading ("# Goals 2025"): it titles what follows and states nothing, so it is no sentence
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
# "The user lives in Madrid", as a tool or the assistant writes it, reads "User lives in Madrid".
_THE_USER = re.compile(r"\b[Tt]he user\b")
#: at most this many skipped sentences are quoted in the notice, each cut to this many characters
NOTICE_EXAMPLES = 4
NOTICE_QUOTE_CHARS = 60


@dataclass(frozen=True)
class Skipped:
    """A sentence that gave no memory, and why."""

    message_id: str
    sentence: str
    reason: str


def speaker_of(message: Message) -> str:
    if message.role == "document":
        m = _BYLINE.search(message.content)
        return m["name"] if m else DOCUMENT_AUTHOR
    return message.name or _ROLE_SPEAKER.get(message.role, message.role.capitalize() or "Someone")


def _anchor(message: Message) -> datetime | None:
    try:
        return parse_time(message.time)
    except InvalidInputError:
        return None  # no readable time: relative dates are left as written


def _key(sentence: str, role: str) -> Keyed | None:
    """Keys are about the user (or someone the user names): from the user's own words, or from "you"
    said to the user."""
    found = _keys(sentence, role)
    return found[0] if found else None


def _keys(sentence: str, role: str, person: str | None = None, topic: str | None = None) -> list[Keyed]:
    """Every key of a statement, the main one first: a user's may state several attributes, and its "he"
    or "she" is ``person``, the one named last before it in the message; another speaker's gives one."""
    if role == "user":
        # a labelled line of a document the person pasted ("Landlord: Mrs Okafor", "- Employer: Veldt") is
        # theirs as a tool's is about them, when nothing else in it is keyed
        return read_all(sentence, person, topic) or _labelled(sentence.lstrip("-*•· \t"))
    found = _other_key(sentence, role)
    return [found] if found is not None else []


def _labelled(sentence: str) -> list[Keyed]:
    key = labelled(sentence)
    return [Keyed(*key)] if key != NO_KEY else []  # type: ignore[arg-type]


def _other_key(sentence: str, role: str) -> Keyed | None:
    if role in _KEYS_ABOUT_ADDRESSEE and (key := addressed(sentence)) is not None:
        return key
    if role != "document":  # "The user lives in Madrid", from a tool or the assistant
        return about_user(sentence)
    # a document's first person is its author's, whoever that is: only its lines about "the user" count
    return about_user(sentence) if not re.search(r"\b(?:I|[Mm]y|[Mm]e)\b", sentence) else None


def _question_before(message: Message, previous: Message | None) -> tuple[str, str] | None:
    """The question another speaker's message ended on, which ``message`` replies to: (asker, question)."""
    if previous is None or (previous.role, previous.name) == (message.role, message.name):
        return None
    spans = split_sentences(previous.content)
    if not spans or not spans[-1].text.endswith("?"):
        return None
    return speaker_of(previous), spans[-1].text


def _skipped(sentence: str, role: str, *, named: bool = False) -> str | None:
    """Why ``sentence`` gives no memory, or None; a short one with a key is kept ("I'm vegan.")."""
    reason = skip_reason(sentence, role, named=named)
    return None if reason == TOO_SHORT and _key(sentence, role) is not None else reason


def _named(text: str, message: Message, speaker: str) -> str:
    """A named person's statement that does not name them says who said it ("Ana said: The kids were
    scared."): in a conversation of several people, a memory that loses its speaker loses its meaning."""
    if message.role != "user" or not message.name or re.search(rf"\b{re.escape(speaker)}\b", text, re.I):
        return text
    return f"{speaker} said: {text}"


def extract(messages: Sequence[Message], context: Sequence[Message] = ()) -> list[Candidate]:
    """Candidates from ``messages``; each quote is an exact substring of its message."""
    return extract_with_skips(messages, context)[0]


def extract_with_skips(
    messages: Sequence[Message], context: Sequence[Message] = ()
) -> tuple[list[Candidate], list[Skipped]]:
    """Candidates from ``messages`` and the sentences that gave none, with the reason. ``context`` (earlier
    turns) is never a source: its last message only says which question the first message answers."""
    out: list[Candidate] = []
    skipped: list[Skipped] = []
    previous_message = context[-1] if context else None
    # each message is cut into statements once, the cuts reading each sentence's one parse (batched here),
    # then the parse is warmed with the statements the cuts made and the loop reads them
    words = [_parsed_as(message) for message in messages]
    warm(w[s.start : s.end] for w, m in zip(words, messages, strict=True) for s in split_sentences(m.content))
    statements = [
        _clauses(message.content, own=message.role == "user", parsed_as=w)
        for message, w in zip(messages, words, strict=True)
    ]
    # one batch for the parse
    warm(_read(span, message) for message, spans in zip(messages, statements, strict=True) for span in spans)
    for message, spans, parsed_as in zip(messages, statements, words, strict=True):
        anchor = _anchor(message)
        # a letter or message the assistant wrote for the person speaks in the person's voice
        drafted = drafts.regions(message.content) if message.role == "assistant" else []
        own_speaker = speaker_of(message)
        asked = _question_before(message, previous_message)
        previous_message = message
        seen: set[str] = set()
        previous = previous_read = ""
        person: str | None = None  # the person named last in the message: whom "he" or "she" is
        for span in spans:
            sentence, read = span.said, _read(span, message)
            before, previous = previous, sentence
            before_read, previous_read = previous_read, read
            if sentence in seen or _HEADING.match(span.text):
                continue
            seen.add(sentence)
            # whose first person the words are: a draft's is the person's (its authority stays its message's)
            drafted_here = drafts.within(drafted, span.start)
            voice = "user" if drafted_here else message.role
            speaker = _ROLE_SPEAKER["user"] if drafted_here else own_speaker
            # a labelled line about the user ("Home: Porto") is short, yet says something
            worded = labelled_wording(sentence) if voice != "user" else None
            reason = _skipped(sentence, voice, named=bool(message.name)) if worded is None else None
            if reason is not None:
                skipped.append(Skipped(message.id, span.text, reason))
                continue
            kind = classify(sentence)
            topic = topic_of(before_read) if before_read and voice == "user" else None
            resolved = _pronoun_resolved(
                read, before, message.content[: span.start] if voice == "user" else ""
            )
            found = [] if drafted_here else _keys_resolved(read, resolved, voice, person, topic)
            person = _last_person(read, found, person) if voice == "user" else None
            keyed = found[0] if found else None
            subject, predicate, value = keyed.key if keyed is not None else (None, None, None)
            text = normalise_explicit_dates(
                third_person(
                    resolved,
                    speaker,
                    addressee_is_user=voice in _ADDRESSES_USER,
                )
            )
            if message.role != "user":
                text = _THE_USER.sub("User", text)
                if subject == "user" and worded is not None:
                    text = worded  # "Home: Porto" from a tool is about the user, and says so
            if text and text[-1] not in ".!?…":  # a clause cut from its sentence
                text += "."
            if anchor is not None:
                text = resolve_relative_dates(text, anchor)
            text = _named(text, message, speaker)
            if asked is not None and value is None:
                # a reply is understood through its question ("They were scared." to "How did the kids take it?")
                text = f"{text} (in reply to {asked[0]}: {asked[1]})"
            out.append(
                Candidate(
                    message_id=message.id,
                    quote=span.text,
                    text=text,
                    kind=kind,
                    subject=subject,
                    predicate=predicate,
                    value=value,
                    importance=importance(sentence, kind),
                    ends=keyed is not None and keyed.ends,
                )
            )
            out.extend(_also_stated(found[1:], message.id, span.text))
        out.extend(_named_in_passing(message, parsed_as, out))
    return out, skipped


def _named_in_passing(message: Message, parsed_as: str, said: Sequence[Candidate]) -> list[Candidate]:
    """The relatives a user's message names by name where no memory of it keys them: in a request or a
    question cut away from what it tells ("can you write a card for my sister Ines?"), each quoting its
    sentence."""
    if message.role != "user":
        return []
    given = {(c.subject, c.predicate, c.value) for c in said if c.message_id == message.id}
    out: list[Candidate] = []
    for s in split_sentences(message.content):
        named = [k for k in named_in_passing(parsed_as[s.start : s.end]) if k.key not in given]
        out += _also_stated(named, message.id, message.content[s.start : s.end])
        given |= {k.key for k in named}
    return out


def _keys_resolved(read: str, resolved: str, role: str, person: str | None, topic: str | None) -> list[Keyed]:
    """The keys of a statement read with its leading pronoun said as whom it stands for: not the relation
    that naming gives ("my sister Ana"), which was said before; what it says of them."""
    found = _keys(resolved, role, person, topic)
    if resolved == read:
        return found
    return [k for k in found if not (k.subject == "user" and (k.predicate or "").startswith("relation:"))]


def _pronoun_resolved(read: str, before: str, earlier: str) -> str:
    """``read`` with a leading "she" or "he" said as whom it stands for: the one relative the sentence
    ``before`` names, else the one the message's ``earlier`` text names (a request cut away: "… a card for
    my sister, she landed …")."""
    resolved = resolve_leading_pronoun(read, before)
    return resolved if resolved != read or not earlier else resolve_leading_pronoun(read, earlier)


def _read(span: Span, message: Message) -> str:
    """A statement as the parse reads it and the memory words it: with the names of the message's cased
    words (``Message.cased``, at the same offsets as its content). The quote is the content's own words."""
    if message.cased is None:
        return span.said
    text = message.cased[span.start : span.end]
    return f"{span.subject} {text}" if span.subject else text


def _also_stated(keys: Sequence[Keyed], message_id: str, quote: str) -> list[Candidate]:
    """A candidate for each further attribute a statement gives ("I'm a data analyst at Copperleaf" is
    also the employer), quoting the same words, worded from its key ("User's employer: Copperleaf."), so
    each attribute has its own version and none is taken for a restatement of the other."""
    out = []
    for k in keys:
        if k.ends or not k.predicate or not k.value:
            continue
        out.append(
            Candidate(
                message_id=message_id,
                quote=quote,
                text=key_wording(k),
                subject=k.subject,
                predicate=k.predicate,
                value=k.value,
                importance=importance(quote, Kind.FACT),
            )
        )
    return out


def key_wording(k: Keyed) -> str:
    """A key said as a labelled line: "User's employer: Copperleaf.", "User's brother's employer: X."."""
    subject = k.subject
    owner = (
        "User" if subject == "user" else "User" + subject[4:] if subject.startswith("user's ") else subject
    )
    attr = attributes.by_name(k.predicate or "")
    noun = attr.nouns[0] if attr is not None and attr.nouns else (k.predicate or "").split(":")[-1]
    return f"{owner}'s {noun.replace('_', ' ')}: {k.value}."


def _last_person(sentence: str, found: Sequence[Keyed], before: str | None) -> str | None:
    """The person a statement is about or names last (another than the speaker), else ``before``."""
    about = [k.subject for k in found if k.subject != "user"]
    named = [k.value for k in found if (k.predicate or "").startswith("relation:") and k.value]
    people = [
        t for t, label in parse(sentence).entities if label == "PERSON" and t.split()[0] not in NOT_NAMES
    ]
    said = about or named or people
    return said[-1] if said else before


def _parsed_as(message: Message) -> str:
    """A message's words as the parse reads them: with its names cased (``Message.cased``, at the content's
    offsets), else as typed."""
    cased = message.cased
    return cased if cased is not None and len(cased) == len(message.content) else message.content


def _clauses(content: str, *, own: bool = True, parsed_as: str | None = None) -> list[Span]:
    """The statements of ``content``: its sentences (of a request or, for the person's ``own`` words, a
    question, the statements it carries: "Remind me that | Lena's birthday is December 28"), each cut
    where a second statement begins, and after a retraction where a statement of its own follows ("I
    quit my job at Acme | and joined Globex").
    A sentence said again is cut as it was the first time, moved to where it stands: the cuts read
    only the sentence itself, and a pasted log may repeat one line many thousands of times. The parse reads
    ``parsed_as`` (the content with its names cased, at the same offsets)."""
    read = parsed_as if parsed_as is not None and len(parsed_as) == len(content) else content
    out: list[Span] = []
    cut: dict[tuple[str, str], tuple[int, list[Span]]] = {}
    for whole in split_sentences(content):
        done = cut.get((whole.text, whole.subject))
        if done is None:
            parts = [
                part
                for told in statements_in(whole, own=own, parsed_as=read[whole.start : whole.end])
                for clause in split_clauses(told)
                for second in _at_pauses(clause, read[clause.start : clause.end])
                for part in split_after_retraction(second)
            ]
            cut[(whole.text, whole.subject)] = (whole.start, parts)
            out.extend(parts)
            continue
        shift = whole.start - done[0]
        out.extend(replace(part, start=part.start + shift, end=part.end + shift) for part in done[1])
    return out


#: the marks a clause of its own may follow
_PAUSES = frozenset(",;-–—")


def _at_pauses(span: Span, parsed_as: str) -> list[Span]:
    """``span`` cut where the parse (of ``parsed_as``, its words with names cased) finds a clause of its own
    after a comma, a semicolon or a dash ("I handed in my notice at Klarwerk last month, | from November I
    start at Zalando"), each part at least three words."""
    if not _PAUSES & set(span.text):
        return [span]  # nothing to cut at: no parse asked for
    parts, start = [], 0
    for at in clauses_after_pause(parsed_as):
        left = span.text[start:at].rstrip(" ,;-–—")
        if len(left.split()) >= 3 and len(span.text[at:].split()) >= 3:
            parts.append(
                Span(
                    span.start + start,
                    span.start + start + len(left),
                    left,
                    span.subject if not start else "",
                )
            )
            start = at
    if not parts:
        return [span]
    return [*parts, Span(span.start + start, span.end, span.text[start:])]


def skipped_notice(skipped: Sequence[Skipped]) -> str | None:
    """One line saying which sentences gave no memory and why, quoting a few; None when none did."""
    if not skipped:
        return None
    by_reason: dict[str, int] = {}
    for s in skipped:
        by_reason[s.reason] = by_reason.get(s.reason, 0) + 1
    counts = ", ".join(f"{n} {reason}" for reason, n in sorted(by_reason.items(), key=lambda p: -p[1]))
    quoted = "; ".join(f'"{_cut(s.sentence)}" ({s.reason})' for s in skipped[:NOTICE_EXAMPLES])
    more = f"; and {len(skipped) - NOTICE_EXAMPLES} more" if len(skipped) > NOTICE_EXAMPLES else ""
    return (
        f"{len(skipped)} sentence(s) gave no memory ({counts}): {quoted}{more}; "
        "the messages are stored whole and searchable"
    )


def _cut(sentence: str) -> str:
    return sentence if len(sentence) <= NOTICE_QUOTE_CHARS else sentence[: NOTICE_QUOTE_CHARS - 1] + "…"
