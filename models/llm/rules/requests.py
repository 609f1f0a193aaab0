"""Requests and instructions to the assistant: not facts about the person who makes them.

"Help me compare the cost of living in two cities", "Can you draft a reply to my landlord",
"Please summarise this" say what the user wants done now, not what is true of them; stored as
facts they read "Help User compare …". A sentence is a request by its mood, read from its shape:

- an imperative: it opens (after "please", "ok", "also" and the like) with a base-form verb that
  directs the listener (:data:`lexicon.DIRECTIVE_VERBS`), or with any base verb whose object
  is the speaker ("Get me …", "Walk us through …"); a base verb followed by an auxiliary, a past
  verb, a colon or a contraction, or two words before an auxiliary, heads a noun phrase ("Review
  went well", "Plan: …", "Book club is on Thursdays");
- a negative imperative of such a verb ("Don't forget …");
- a modal or wished request: "can/could/would/will you …", "would you mind …", "I need/want/'d like
  you to …", "let's …".

A sentence that also tells something the speaker did ("Check out these kids I met at the shelter")
reports it, and is kept as a statement.

A question typed without its question mark ("how do I turn off the minimap", "is there a cheaper
flight") is read by its word order (:func:`is_question`): it is not a fact either.

A request or a question may carry statements, and those are facts (:func:`statements_in`). When a
request's verb is one of keeping or telling ("remind", "remember", "note", "keep in mind", "don't
forget", "tell") and what follows it (after "that", a colon, or the person reminded) is a clause with
a finite verb, that clause is the statement: "Remind me that Lena's birthday is December 28" states
the birthday; "Remind me to call the dentist" carries none (an infinitive is a task). Any other
request or question gives the statements it tells on its way, read from the parse
(:func:`parse.told_within`): "how much would I save going electric, I drive the Corsa 800 miles a
month" gives "I drive the Corsa 800 miles a month", "can you write to the dealer confirming I'll pick
up the Niro on Saturday" gives "I'll pick up the Niro on Saturday", each quoted exactly where it is.
"""

from __future__ import annotations

import re

from veramem_desktop.core.recall.statements import ADDRESSEE
from veramem_desktop.models.llm.rules.lexicon import DIRECTIVE_VERBS, IRREGULAR_PAST, is_common_verb
from veramem_desktop.models.llm.rules.parse import WH_WORDS, told_within
from veramem_desktop.models.llm.rules.text import STOPWORDS, Span

# What may come before a request's verb: courtesy, fillers, and a name the assistant is called by.
_LEAD = re.compile(
    r"^(?:(?:please|pls|plz|kindly|ok(?:ay)?|so|also|and|now|just|quickly|hey|hi|hello|right|alright|"
    r"actually|oh|um|uh|could you please|can you please)\b[\s,:]*)*",
    re.IGNORECASE,
)
_MODAL = re.compile(
    rf"^(?:(?:can|could|would|will|won't|wouldn't|cannot|can't)\s+{ADDRESSEE}\b|would you mind\b"
    r"|(?:I|we)\s*(?:'d| would)?\s*(?:need|want|like|love|ask)\s+(?:you|u)\s+to\b|let'?s\b|please\b|pls\b)",
    re.IGNORECASE,
)
# A negative imperative: "Don't forget …", "Do not book …".
_DONT = re.compile(r"^(?:don't|do not|never)\s+(?P<verb>[A-Za-z]+)\b", re.IGNORECASE)
_FIRST_WORD = re.compile(r"^(?P<verb>[A-Za-z]+)(?P<after>[^\w]*)(?P<next>[\w']*)")
_SPEAKER_OBJECT = frozenset({"me", "us", "my", "our"})
# After a base verb, words that make it a noun or a statement: "Review went well", "Help is coming".
_NOT_AFTER_VERB_TEXT = """
    is are was were be been being has have had does did do can could will would should may might must of
"""
_NOT_AFTER_VERB = frozenset(_NOT_AFTER_VERB_TEXT.split())

# Keeping and telling: a request with one of these may carry the statement it wants kept.
_KEEP = re.compile(
    r"\b(?:remind|remember|note to self|note|notes|noting|keep in mind|bear in mind|don't forget|do not forget|never forget|"
    r"make a note|write down|jot down|record|log|save|tell)\b(?:\s+(?:me|us|him|her|them|the assistant))?"
    r"(?:\s+(?:know|again|later|please))*",
    re.IGNORECASE,
)
# A finite verb after a subject: what makes the words after the request a statement of their own.
_FINITE = re.compile(
    r"\b(?:is|are|was|were|am|'s|'re|'m|has|have|had|'ve|will|'ll|won't|isn't|aren't|wasn't|weren't"
    r"|does|do|did|doesn't|don't|didn't|can|can't|could|should|must)\b"
    r"|\b[a-z]+(?:s|ed)\b",
    re.IGNORECASE,
)


def _body(sentence: str) -> str:
    return _LEAD.sub("", sentence.replace("’", "'").strip()).strip()


# Something the speaker did, told inside a request ("Check out these kids I met at the shelter"): the
# sentence reports it, so it is kept as a statement.
_SPEAKER_DID = re.compile(r"\b(?:I|[Ww]e)\s+(?:just\s+|recently\s+|finally\s+|all\s+)?(?P<verb>[a-z]+)\b")


def _reports_a_deed(sentence: str) -> bool:
    """Whether the sentence tells a deed of the speaker's; one asked about ("show how I went from …", "explain
    why we left") is what the request is about, not a report."""
    return any(
        _past(m["verb"]) and not _ASKED_ABOUT.search(sentence[: m.start()])
        for m in _SPEAKER_DID.finditer(sentence)
    )


#: a word opening a clause that says what is asked or shown, right before the speaker's deed
_ASKED_ABOUT = re.compile(r"\b(?:how|why|what|whether|if)\s+$", re.IGNORECASE)


#: a letter typed three times or more, as chat stretches a word ("Hiii", "pleeease", "sooo"): no English word
#: holds one, so the word read is the one stretched
_STRETCHED = re.compile(r"([A-Za-z])\1{2,}")


def is_request(sentence: str) -> bool:
    """Whether ``sentence`` asks or tells the assistant to do something (module docstring)."""
    raw = _STRETCHED.sub(r"\1", sentence.replace("’", "'").strip())
    if _reports_a_deed(raw):
        return False
    if _MODAL.match(raw) or re.match(r"^(?:please|pls|plz|kindly)\b", raw, re.IGNORECASE):
        return True
    body = _body(raw)
    if _MODAL.match(body):
        return True
    if (neg := _DONT.match(body)) is not None:
        return neg["verb"].lower() in DIRECTIVE_VERBS
    m = _FIRST_WORD.match(body)
    if m is None:
        return False
    verb, after, following = m["verb"].lower(), m["after"], m["next"].lower()
    if any(c in after for c in ":-'") or following in _NOT_AFTER_VERB or _past(following):
        return False  # "Plan: …", "Check-in is …", "Name's …", "Help is on the way", "Review went well"
    third = body.split()[2:3]
    if third and third[0].lower() in _NOT_AFTER_VERB:
        return False  # a noun phrase as subject: "Book club is on Thursdays"
    if verb in DIRECTIVE_VERBS:
        return True
    return following in _SPEAKER_OBJECT and is_common_verb(verb) and not verb.endswith("s")


# Questions asked without a question mark, as people type them: "how do I turn off the minimap",
# "what's a good tent for two", "is there a cheaper flight". A wh-word opens a question when an
# auxiliary or a verb follows it (straight away or after the noun it asks about: "what foods keep …"),
# never when a subject pronoun does ("when I was on nights …" is a clause of a statement).
_WH = WH_WORDS
_AUXILIARIES_TEXT = """
    do does did is are was were am can could should would will shall might must may have has 's 're
"""
_AUXILIARIES = frozenset(_AUXILIARIES_TEXT.split())
#: a question word with its "'s" and no apostrophe
_WH_S = frozenset(w + "s" for w in ("what", "how", "where", "who", "when", "why"))
_PRONOUNS = frozenset(["i", "you", "we", "he", "she", "they", "it", "this", "that", "there", "a", "an"])
_HOW_MUCH = frozenset(["often", "much", "many", "long", "far", "come", "about"])
_YES_NO = re.compile(
    r"^(?:is|are|was|were|do|does|did|can|could|should|would|will|shall|have|has|am)\s+"
    r"(?:I|you|we|there|it|they|he|she|my|the|this|that|these|those|anyone|anybody|any)\b",
    re.IGNORECASE,
)
_TIPS = re.compile(r"^any\s+(?:good\s+)?(?:tips|ideas|suggestions|recommendations|advice|thoughts)\b", re.I)
#: a condition opening a sentence, and the words that may open what is asked on it
_CONDITION = re.compile(r"^(?:if|say|assuming)\s", re.I)
_ASKING = re.compile(r"\b(?:what|how|where|when|which|who|should|can|could|would|do|does|is|are)\b", re.I)


def is_question(sentence: str) -> bool:
    """Whether ``sentence`` asks something, with or without its question mark; a question after the
    condition it is asked on ("if I do 120 miles a night how much is petrol") asks too."""
    body = _body(sentence)
    if "?" in body or _TIPS.match(body):
        return True
    asked_on = _CONDITION.match(body)
    if asked_on is not None and any(
        is_question(body[m.start() :]) for m in _ASKING.finditer(body, asked_on.end())
    ):
        return True
    if _MODAL.match(body):
        return False  # "could you write …": a request (is_request)
    ws = re.findall(r"[a-z]+|'[a-z]+", body.lower().replace("’", "'"))
    if ws and ws[0] in _WH_S:  # "whats a fair price", as chat leaves out the apostrophe
        ws[:1] = [ws[0][:-1], "'s"]
    if _YES_NO.match(body) and len(ws) >= 4:
        return True
    if len(ws) < 3 or ws[0] not in _WH or ws[1] in _PRONOUNS:
        return False
    if ws[1] in _AUXILIARIES or (ws[0] == "how" and ws[1] in _HOW_MUCH):
        return True
    if ws[0] in ("when", "where", "why", "who"):
        return False  # "When things get rough, …" opens a clause of a statement
    if any(w in _AUXILIARIES for w in ws[2:4]) or is_common_verb(ws[2]):
        return True  # "which bike lock is …", "what foods keep …"
    # a plural noun and the bare verb agreeing with it: "what plants survive …"
    return ws[1].endswith("s") and not ws[2].endswith("s") and ws[2] not in STOPWORDS


def _past(word: str) -> bool:
    return word in IRREGULAR_PAST or (word.endswith("ed") and len(word) > 4)


#: where a statement a request or a question carries may stop: a comma, a semicolon or a dash
_PAUSE = re.compile(r"\s*(?:[,;]|\s[-–—])\s*")


def _statement_only(said: str, whole: str) -> str:
    """``said`` up to the pause after which the words ask or request again ("I'm moving to Leeds in May,
    | any tips for finding a flat"; of a sentence asked, "I work at Klarwerk, | is it ok to …")."""
    asked = said.rstrip().endswith("?") or whole.rstrip().endswith("?")
    for m in _PAUSE.finditer(said):
        rest = said[m.end() :]
        opener = rest.split()[0].lower() if rest.split() else ""
        if opener in _WH or (asked and opener in _AUXILIARIES) or is_question(rest) or is_request(rest):
            return said[: m.start()]
    return said


def _told(span: Span, parsed_as: str) -> list[Span]:
    """The statements ``span`` carries, each quoted where it is (parse.told_within of ``parsed_as``)."""
    out = []
    for start, end in told_within(parsed_as):
        said = _statement_only(span.text[start:end], span.text)
        if len(said.split()) >= 2:
            out.append(Span(span.start + start, span.start + start + len(said), said))
    return out


def _asks_or_requests(sentence: str) -> bool:
    """Whether a sentence asks something or is shaped as a request, even one that also tells a deed ("can
    you help me write to my landlord, we moved in June")."""
    raw = sentence.replace("’", "'").strip()
    return is_question(raw) or is_request(raw) or bool(_MODAL.match(_body(raw)))


def statements_in(span: Span, *, own: bool = True, parsed_as: str | None = None) -> list[Span]:
    """The statements a sentence gives to extract, each a span of its own quoted exactly where it is: the
    sentence itself when it asks and requests nothing; what a request to keep or tell carries ("Remind me
    that Lena's birthday is December 28" gives "Lena's birthday is December 28"); and the statements a
    request or a question tells on its way ("how much would I save going electric, I drive the Corsa 800
    miles a month" gives "I drive the Corsa 800 miles a month"). A request or a question that tells
    nothing is given whole, for the skip to say why it gives no memory. Only the person's ``own`` questions
    tell statements: an assistant's "So Mr Castellano is still your landlord?" asserts nothing.
    ``parsed_as``: the sentence's words as the parse reads them (names cased, at the same offsets)."""
    if span.subject or not _asks_or_requests(span.text):
        return [span]
    if is_request(span.text) and (kept := _kept(span)) is not None:
        return [kept]
    return (_told(span, parsed_as or span.text) if own else []) or [span]


def _kept(span: Span) -> Span | None:
    """What a request to keep or tell carries, or None ("Remind me to call the dentist" carries none: an
    infinitive is a task, not a statement)."""
    keep = _KEEP.search(span.text)
    if keep is None:
        return None
    rest = span.text[keep.end() :]
    lead = re.match(r"\s*(?:that\b|:|,)?\s*", rest)
    offset = keep.end() + (lead.end() if lead else 0)
    said = span.text[offset:].strip()
    if not said or re.match(r"(?:to|about|of|when|if|how|what|why|where|who)\b", said, re.IGNORECASE):
        return None  # a task ("remind me to call"), a topic ("about the dentist"), or a question
    if _FINITE.search(said) is None or len(said.split()) < 3:
        return None
    start = span.start + offset
    return Span(start, start + len(said), said)
