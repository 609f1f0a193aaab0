"""Rule-based extraction: one candidate per sentence that states something.

Each kept sentence is quoted exactly as written (so the engine's quote check always
finds it), classified as a preference, an event or a fact by patterns, given a
subject/predicate/value when it has a simple shape ("my X is Y", "I live in …"), and
rewritten in the third person with its relative dates resolved against the time of
its own message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from veramem_desktop.core.dates import normalise_explicit_dates, parse_time, resolve_relative_dates
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.llm import Candidate, Kind, Message
from veramem_desktop.models.llm.rules.text import content_words, split_sentences, stem, words

Key = tuple[str | None, str | None, str | None]

# --- which sentences are kept ----------------------------------------------------------------

_FILLER_WORDS_TEXT = """
    hi hey hello hiya yo thanks thank bye goodbye ok okay sure yeah yep yes nope wow cool great
    awesome nice amazing lol haha hahaha glad happy sorry welcome good morning evening afternoon
    night congrats congratulations cheers totally definitely absolutely exactly right true agreed
    indeed interesting fun fantastic wonderful lovely sweet perfect oh ah hmm um uh see talk soon
    later care luck
"""
_FILLER_WORDS = frozenset(_FILLER_WORDS_TEXT.split())
_OPENERS = re.compile(
    r"^(?:hi|hey|hello|thanks|thank you|bye|goodbye|good (?:morning|night|evening|afternoon)|congrat\w*|"
    r"see you|talk (?:to you )?soon|take care|good luck)\b",
    re.IGNORECASE,
)
_ASSISTANT_FILLER = re.compile(
    r"^(?:(?:i(?:'d| would) be (?:happy|glad)|let me|let's|i can help|i'm here|here(?:'s| is| are)|feel free|"
    r"i hope|hope (?:this|that)|happy to|glad|sorry|as an ai|i understand|of course|certainly|absolutely|"
    r"sure|no problem|you're welcome|please|tell me|try|check|imagine|remember to)\b)",
    re.IGNORECASE,
)
_SECOND_PERSON_START = re.compile(r"^(?:you|you're|you’re|your|you've|you'll)\b", re.IGNORECASE)


def worth_keeping(sentence: str, role: str) -> bool:
    """A statement about the speaker or the world: not a question, greeting, filler or fragment."""
    if "?" in sentence or len(words(sentence)) < 3:
        return False
    content = [w for w in content_words(sentence) if w not in _FILLER_WORDS]
    if not content:
        return False
    first_person = re.search(r"\b(?:I|I'm|I’m|my|me|we|our)\b", sentence) is not None
    if _OPENERS.match(sentence) and not first_person:
        return False
    if _ASSISTANT_FILLER.match(sentence):
        return False
    # the user talking about the other party ("You did great!") says nothing lasting about anyone
    return not (role == "user" and _SECOND_PERSON_START.match(sentence))


# --- kind -------------------------------------------------------------------------------------

_ADVERBS = (
    r"(?:really|also|absolutely|totally|just|still|do|now|truly|definitely|actually|kind of|sort of|always)"
)
_PREFERENCE = re.compile(
    r"\b(?:I|we)\s+(?:" + _ADVERBS + r"\s+)*(?:like|love|prefer|enjoy|adore|hate|dislike|detest|can't stand|"
    r"cannot stand|don't (?:really )?(?:like|love|enjoy)|do not (?:like|love|enjoy)|would rather)\b"
    r"|\b(?:I'd|we'd) rather\b|\b(?:my|our) (?:absolute |all-time )?favou?rite\b"
    r"|\b(?:I'm|I am|we're) (?:a (?:big |huge )?fan of|not a fan of|(?:really |not )?into)\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last (?:night|week|weekend|month|year|\w+day)|"
    r"(?:this|next|last) (?:morning|afternoon|evening|week|weekend|month|year|\w+day|january|february|march|"
    r"april|may|june|july|august|september|october|november|december|thanksgiving|christmas|easter)|"
    r"on (?:mon|tues|wednes|thurs|fri|satur|sun)day|in (?:january|february|march|april|May|june|july|august|"
    r"september|october|november|december)|in \d{4}|\d{4}-\d{2}-\d{2}|"
    r"(?:jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}|\d{1,2}(?:st|nd|rd|th)? (?:of )?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|earlier|recently|the other day)\b",
    re.IGNORECASE,
)
_IRREGULAR_PAST_TEXT = """
    went got had was were saw met took made bought ran came ate gave found left began wrote read won
    lost flew drove fell felt forgot heard held kept knew led lent meant paid put rode rang rose
    said sold sent set shook shot sang sat slept spoke spent stood stole swam taught told thought
    threw understood woke wore broke brought built caught chose did drew drank fought grew hid hit
    hurt
"""
IRREGULAR_PAST = frozenset(_IRREGULAR_PAST_TEXT.split())
_NOT_PAST_TEXT = """
    need feed seed bed red shed indeed speed bleed breed proceed succeed exceed
"""
_NOT_PAST = frozenset(_NOT_PAST_TEXT.split())
_PAST_ACTION = re.compile(
    r"\b(?:I|we|he|she|they|[A-Z][a-z]+)\s+(?:just\s+|finally\s+|recently\s+|also\s+|actually\s+)?"
    r"(?P<verb>[a-z]+)\b"
)
_FUTURE = re.compile(r"\b(?:will|'ll|going to|gonna|(?:am|'m|are|'re|is)\s+\w+ing)\b", re.IGNORECASE)


def _has_past_action(sentence: str) -> bool:
    for m in _PAST_ACTION.finditer(sentence):
        verb = m["verb"].lower()
        if verb in IRREGULAR_PAST or (verb.endswith("ed") and len(verb) > 3 and verb not in _NOT_PAST):
            return True
    return False


def classify(sentence: str) -> Kind:
    """preference / event / fact, by the patterns in the module docstring."""
    if _PREFERENCE.search(sentence):
        return "preference"
    if _TIME.search(sentence) and (_has_past_action(sentence) or _FUTURE.search(sentence)):
        return "event"
    return "fact"


# --- subject / predicate / value --------------------------------------------------------------

_NEG = r"(?P<neg>no longer |don't |do not |never |not )?"
_VALUE = r"(?P<value>[^.,;!?]+)"
_CUT = re.compile(
    r"\s+(?:and|but|because|since|for|with|when|while|so|though|although|until|anymore|any more|now|"
    r"yesterday|today|tomorrow|last|next|this|ago|these days|at the moment)\b.*$",
    re.IGNORECASE,
)
_ATTRIBUTES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bmy name is (?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)"), "name"),
    (re.compile(r"\b(?:I'm|I am) called (?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)"), "name"),
    (re.compile(r"\b(?:I'm|I am) (?P<value>\d{1,3}) years? old\b", re.IGNORECASE), "age"),
    (
        re.compile(
            r"\bI (?:currently |now |still )?" + _NEG + r"(?:live|am living|'m living) in " + _VALUE, re.I
        ),
        "lives_in",
    ),
    (re.compile(r"\b(?:I'm|I am) " + _NEG + r"(?:living|based) in " + _VALUE, re.I), "lives_in"),
    (
        re.compile(r"\bI(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) to " + _VALUE, re.I),
        "lives_in",
    ),
    (
        re.compile(
            r"\bI (?:currently |now |still )?"
            + _NEG
            + r"(?:work|am working|'m working) (?:at|for) "
            + _VALUE,
            re.I,
        ),
        "works_at",
    ),
    (re.compile(r"\bI work as (?:an? )?" + _VALUE, re.I), "occupation"),
    (
        re.compile(
            r"\b(?:I'm|I am) " + _NEG + r"(?:severely |very |mildly |slightly )?allergic to " + _VALUE, re.I
        ),
        "allergic_to",
    ),
    (
        re.compile(r"\bI (?:" + _ADVERBS + r"\s+)*" + _NEG + r"(?:like|love|enjoy|adore) " + _VALUE, re.I),
        "likes",
    ),
    (
        re.compile(
            r"\bI (?:" + _ADVERBS + r"\s+)*(?:hate|dislike|detest|can't stand|cannot stand) " + _VALUE, re.I
        ),
        "dislikes",
    ),
]
_PREFER = re.compile(
    r"\bI(?: " + _ADVERBS + r")* prefer (?P<value>[^.,;!?]+?)(?:\s+(?:to|over|rather than|instead of)\s+"
    r"(?P<alt>[^.,;!?]+))?(?=[.,;!?]|$)",
    re.IGNORECASE,
)
_MY_X_IS = re.compile(
    r"\bmy (?P<attr>(?:favou?rite )?[a-z]+(?: [a-z]+)?) (?:is|are) (?:now )?" + _VALUE, re.IGNORECASE
)
_ARTICLE = re.compile(r"^(?:the|a|an|some|my)\s+", re.IGNORECASE)


def _clean(value: str) -> str | None:
    when = _TIME.search(value)
    if when:
        value = value[: when.start()]
    # "Lisbon two weeks" when the time expression "… ago" was cut off above
    value = re.sub(r"\s+(?:\w+\s+)?(?:days?|weeks?|months?|years?)\s*$", "", value)
    value = _CUT.sub("", value.strip()).strip(" '\"")
    value = _ARTICLE.sub("", value)
    return value or None


def _topic(phrase: str) -> str:
    """The head word of a noun phrase, singular: "window seats" -> "seat"."""
    ws = [w for w in words(phrase) if w not in ("the", "a", "an", "my", "some")]
    return stem(ws[-1]) if ws else "general"


def attribute(sentence: str) -> Key:
    """(subject, predicate, value) for simple first-person statements, else three Nones."""
    m = _PREFER.search(sentence)
    if m:
        value = _clean(m["value"])
        if value:
            if m["alt"] and _clean(m["alt"]):
                topic = "/".join(sorted({_topic(value), _topic(_clean(m["alt"]) or "")}))
            else:
                topic = _topic(value)
            return "user", f"preference:{topic}", value
    for pattern, predicate in _ATTRIBUTES:
        m = pattern.search(sentence)
        if m and (value := _clean(m["value"])):
            if predicate == "likes" and (m.groupdict().get("neg") or "").strip() in (
                "don't",
                "do not",
                "never",
                "not",
            ):
                predicate = "dislikes"
            return (
                "user",
                predicate,
                re.sub(r"^to\s+", "", value) if predicate in ("likes", "dislikes") else value,
            )
    m = _MY_X_IS.search(sentence)
    if m and (value := _clean(m["value"])):
        attr = " ".join(m["attr"].lower().split())
        fav = re.match(r"favou?rite (.+)", attr)
        predicate = f"preference:{fav.group(1)}" if fav else attr.replace(" ", "_")
        return "user", predicate, value
    return None, None, None


# --- third-person wording ---------------------------------------------------------------------

_NO_CONJUGATION_TEXT = """
    can could will would shall should may might must did was were had used ought need dare
"""
_NO_CONJUGATION = frozenset(_NO_CONJUGATION_TEXT.split())
_BETWEEN = (
    r"(?:(?:really|also|just|usually|always|never|often|sometimes|still|actually|absolutely|totally|"
    r"definitely|mostly|rarely|finally|recently|currently|now|only|even|no longer|kind of|sort of)\s+)*"
)
_I_VERB = re.compile(r"\bI\s+(?P<adv>" + _BETWEEN + r")(?P<verb>[A-Za-z]+)\b")
_INTERJECTION = re.compile(
    r"^(?:(?:oh|well|so|yeah|yes|um|uh|actually|honestly|anyway|btw|lol|haha|wow|hey)\b[,!.]*\s+)+",
    re.IGNORECASE,
)
_FIXED = [
    (re.compile(r"\bI'm\b"), "{s} is"),
    (re.compile(r"\bI am\b"), "{s} is"),
    (re.compile(r"\bI've\b"), "{s} has"),
    (re.compile(r"\bI'd\b"), "{s} would"),
    (re.compile(r"\bI'll\b"), "{s} will"),
    (re.compile(r"\bI don't\b"), "{s} doesn't"),
    (re.compile(r"\bI do not\b"), "{s} does not"),
    (re.compile(r"\bI haven't\b"), "{s} hasn't"),
    (re.compile(r"\bI have not\b"), "{s} has not"),
    (re.compile(r"\b[Mm]y\b"), "{s}'s"),
    (re.compile(r"\b[Mm]ine\b"), "{s}'s"),
    (re.compile(r"\b[Mm]yself\b"), "{s}"),
    (re.compile(r"\bme\b"), "{s}"),
]


def _third_singular(verb: str) -> str:
    low = verb.lower()
    special = {"have": "has", "do": "does", "go": "goes", "am": "is", "was": "was", "be": "is"}
    if low in special:
        return special[low]
    if low in _NO_CONJUGATION or low in IRREGULAR_PAST or low.endswith("ed") or low.endswith("n't"):
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


_YOU = [
    (re.compile(r"\b[Yy]ou're\b"), "User is"),
    (re.compile(r"\b[Yy]ou've\b"), "User has"),
    (re.compile(r"\b[Yy]ou'll\b"), "User will"),
    (re.compile(r"\b[Yy]ou are\b"), "User is"),
    (re.compile(r"\b[Yy]ou have\b"), "User has"),
    (re.compile(r"\b[Yy]ours\b"), "User's"),
    (re.compile(r"\b[Yy]our\b"), "User's"),
    (re.compile(r"\b[Yy]ou\b"), "User"),
]


def third_person(sentence: str, speaker: str, *, addressee_is_user: bool = False) -> str:
    """Rewrite simple first-person wording: "I love my job" -> "User loves User's job".

    When the speaker is talking to the user (an assistant or a tool), "you" and "your"
    are the user too.
    """
    text = _INTERJECTION.sub("", sentence.replace("’", "'")).strip()
    if addressee_is_user:
        for pattern, replacement in _YOU:
            text = pattern.sub(replacement, text)
    for pattern, template in _FIXED:
        text = pattern.sub(template.format(s=speaker), text)
    text = _I_VERB.sub(lambda m: f"{speaker} {m['adv']}{_third_singular(m['verb'])}", text)
    text = re.sub(r"\bI\b", speaker, text)
    return text[:1].upper() + text[1:]


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
    score = 0.5 + {"preference": 0.1, "event": 0.05}.get(kind, 0.0)
    if _HEALTH.search(sentence):
        score += 0.3
    if _IDENTITY.search(sentence):
        score += 0.15
    if _EMPHASIS.search(sentence):
        score += 0.1
    return round(min(1.0, score), 2)


# --- the task ---------------------------------------------------------------------------------

_ROLE_SPEAKER = {"user": "User", "assistant": "Assistant", "system": "System"}


def speaker_of(message: Message) -> str:
    return message.name or _ROLE_SPEAKER.get(message.role, message.role.capitalize() or "Someone")


def _anchor(message: Message) -> datetime | None:
    try:
        return parse_time(message.time)
    except InvalidInputError:
        return None  # no readable time: relative dates are left as written


def extract(messages: Sequence[Message]) -> list[Candidate]:
    """Candidates from ``messages``; each quote is an exact substring of its message."""
    out: list[Candidate] = []
    for message in messages:
        anchor = _anchor(message)
        speaker = speaker_of(message)
        seen: set[str] = set()
        for span in split_sentences(message.content):
            sentence = span.text
            if sentence in seen or not worth_keeping(sentence, message.role):
                continue
            seen.add(sentence)
            kind = classify(sentence)
            subject, predicate, value = attribute(sentence) if message.role == "user" else (None, None, None)
            text = normalise_explicit_dates(
                third_person(sentence, speaker, addressee_is_user=message.role != "user")
            )
            if anchor is not None:
                text = resolve_relative_dates(text, anchor)
            out.append(
                Candidate(
                    message_id=message.id,
                    quote=sentence,
                    text=text,
                    kind=kind,
                    subject=subject,
                    predicate=predicate,
                    value=value,
                    importance=importance(sentence, kind),
                )
            )
    return out
