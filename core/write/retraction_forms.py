"""Reading a retraction: a statement that something said before stopped being true.

"I no longer work at Acme", "I don't like jazz anymore", "I'm not vegetarian anymore", "I stopped
using Notion", "I quit playing tennis", "I gave up coffee", "I sold the Volvo": :func:`read` finds
the form in the words a memory quotes (the speaker's own, so the rule holds whichever model
extracted the candidate) and returns who it is about as said, the verb that stopped (its lemma:
"work", "use"; "be" for a state, "have" for a possession sold or given away; None for "gave up
coffee") and the thing it stopped for, as said. :func:`retracts` says whether a stored memory
states that thing with that verb; :func:`same_person` whether a retraction may speak of a memory
at all ("Mel no longer works at Acme" never retracts "User works at Acme").

Forms, each opening the sentence (after "Actually," or a leading phrase such as "As of March,"):
"<who> no longer <verb> <thing>", "<who> is no longer <thing>", "<who> do(es)/is not … anymore",
"<who> stopped/quit/gave up <verb>ing <thing>", "<who> quit/gave up <thing>", "<who> sold/gave
away/got rid of <thing>". So "I stopped by the shop" (no -ing verb), a question, a hypothetical
("If I sold the car, …", "I would no longer …") and a sale with a replacement ("… and bought a new
one") read as none. Pure functions over text: no SQL, no model.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from veramem_desktop.core.write.correction_targets import who

#: a retraction is a short sentence: longer ones are not read (and no pattern runs over long text)
MAX_SENTENCE_CHARS = 300
_CONTRACTIONS = [
    (re.compile(r"\b(I)'m\b", re.I), r"\1 am"),
    (re.compile(r"\b(won)'t\b", re.I), "will not"),
    (re.compile(r"\b(ca)n't\b", re.I), r"\1n not"),
    (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"'re\b", re.I), " are"),
    (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"\b(he|she|it)'s\b", re.I), r"\1 is"),
]
#: openings that carry no content, and a leading phrase before a comma ("As of March, ")
_LEAD = re.compile(
    r"^(?:(?:oh|ah|well|so|and|but|also|actually|honestly|sadly|finally|anyway|btw|by the way|fyi|update|"
    r"just so you know|for the record|oh and|ok|okay)\b[\s,:;!.\u2014\u2013-]*)+",
    re.IGNORECASE,
)
_HYPOTHETICAL = (
    r"(?:if|when|whenever|whether|should|would|could|might|maybe|perhaps|unless|once|suppose|imagine)"
)
_LEADING_PHRASE = re.compile(r"^(?!" + _HYPOTHETICAL + r"\b)[^,]{1,40},\s+(?=\S)", re.IGNORECASE)
#: who it is about, as said: "I", "we", "Mel", "my sister", "Anna Lopez"
_FUNCTION_NAMES = (
    r"(?:If|When|Whether|Should|Would|Could|Maybe|Perhaps|Unless|Once|Do|Does|Did|Is|Are|Can|Will|Why|What|"
    r"How|Where|Who|It|There|This|That|The|A|An|Not|No|Yes)"
)
#: words that end a possessive subject ("My diet | is no longer vegan")
_NOT_NOUN = r"(?:am|is|are|was|were|no|not|never|do|does|did|have|has|had|stopped|quit|gave|sold)\b"
_SUBJECT = (
    r"(?P<subj>I|we|he|she|they|(?i:my|our|his|her|their)\s+(?:(?!"
    + _NOT_NOUN
    + r")[a-z]+\s+)?(?!"
    + _NOT_NOUN
    + r")[a-z]+|"
    r"(?!" + _FUNCTION_NAMES + r"\b)[A-Z][a-z][\w'-]*(?:\s(?!I\b)[A-Z][\w'-]*)?)"
)
_BE = r"(?:am|is|are|was|were)"
_ADVERB = r"(?:(?:just|finally|recently|now|also|really|officially|already|even|actually)\s+)?"
_FORMS: list[tuple[str, re.Pattern[str]]] = [
    (
        "no_longer",
        re.compile(
            r"^" + _SUBJECT + r"\s+(?:(?P<be>" + _BE + r")\s+)?" + _ADVERB + r"no\s+longer\s+(?P<rest>.+)$"
        ),
    ),
    (
        "not_anymore",
        re.compile(
            r"^"
            + _SUBJECT
            + r"\s+(?:(?P<be>"
            + _BE
            + r")\s+not|(?:do|does|did)\s+not|never|can\s?not)\s+"
            + _ADVERB
            + r"(?P<rest>.+?)\s*,?\s+any\s?more\b.*$"
        ),
    ),
    (
        "stopped",
        re.compile(
            r"^"
            + _SUBJECT
            + r"\s+(?:have\s+|has\s+|had\s+)?"
            + _ADVERB
            + r"(?P<stop>stopped|quit|gave\s+up|given\s+up|ceased)\s+(?P<rest>.+)$"
        ),
    ),
    (
        "disposed",
        re.compile(
            r"^"
            + _SUBJECT
            + r"\s+(?:have\s+|has\s+|had\s+)?"
            + _ADVERB
            + r"(?:sold|gave\s+away|given\s+away|got\s+rid\s+of|gotten\s+rid\s+of|traded\s+in|donated|scrapped)"
            r"\s+(?P<rest>.+)$"
        ),
    ),
]
#: where the thing that stopped ends: a conjunction, a time, "anymore"
_CUT = re.compile(
    r"\s*(?:[,;:(\u2014\u2013]|\s-+\s|\b(?:and|but|because|since|so|as|when|while|after|before|though|although|"
    r"until|which|who|anymore|any more|now|these days|yesterday|today|last|this|next|ago|earlier|recently|"
    r"in\s+(?:january|february|march|april|may|june|july|august|september|october|november|december|\d{4}))\b)",
    re.IGNORECASE,
)
#: a possession given away and replaced holds still: "I sold my old bike and bought a new one"
_REPLACED = re.compile(
    r"\b(?:bought|got|purchased|ordered|picked\s+up|have|adopted)\s+(?:a\s+|an\s+|my\s+)?"
    r"(?:new|newer|another|replacement|different|second)\b|\bnew\s+one\b|\breplaced\s+(?:it|her|him|them)\b",
    re.IGNORECASE,
)
_PREPOSITION = r"(?:at|in|to|with|for|on|from|of|into|about|near|by|as)"
_FUNCTION_WORDS_TEXT = """
    a an the my our your his her their its this that these those some any all me us him them it there here
    one ones thing things stuff
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
#: what "X's <word>" names when it is another person, not an attribute of X ("User's sister", not
#: "User's editor")
_RELATIONS_TEXT = """
    mother mom mum father dad parents sister brother sibling wife husband partner boyfriend girlfriend
    fiance fiancee spouse son daughter kid kids child children cousin aunt uncle grandma grandmother
    grandpa grandfather niece nephew friend best roommate flatmate boss colleague coworker neighbour
    neighbor family dog cat pet
"""
_RELATIONS = frozenset(_RELATIONS_TEXT.split())
#: heads that name no thing of their own: what follows them does ("my job at Acme")
_GENERIC = frozenset({"job", "position", "role", "post", "work", "place", "gig", "membership"})
#: verbs of having: a possession given away retracts a memory that one has, owns, drives … it
_HAVING = frozenset(
    {"have", "own", "get", "buy", "drive", "keep", "possess", "be", "adopt", "rent", "lease", "ride"}
)
#: verbs that state the same thing in other words
_SAME_VERB = [
    frozenset({"like", "love", "enjoy", "adore", "prefer"}),
    frozenset({"live", "reside", "stay", "base"}),
    frozenset({"work", "employ"}),
]
_WORD = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)?")


@dataclass(frozen=True)
class Retraction:
    """What a retraction says stopped: ``who`` as said ("I", "Mel", "my sister"), the ``verb``'s lemma
    (None when only the thing is named: "I gave up coffee") and the ``thing``, as said."""

    who: str
    verb: str | None
    thing: str
    form: str


def read(quote: str) -> Retraction | None:
    """The retraction ``quote`` makes, or None (most sentences, including a plain negation: "I don't
    like jazz" says nothing stopped)."""
    for sentence in _sentences(quote):
        found = _read_sentence(sentence)
        if found is not None:
            return found
    return None


def _read_sentence(sentence: str) -> Retraction | None:
    if len(sentence) > MAX_SENTENCE_CHARS or "?" in sentence:
        return None
    body = _LEAD.sub("", sentence).strip()
    after = _LEAD.sub("", _LEADING_PHRASE.sub("", body, count=1)).strip()  # "As of March, I no longer …"
    for said in dict.fromkeys((body, after)):
        for form, pattern in _FORMS:
            m = pattern.match(said)
            if m is not None:
                return _made(form, m, sentence)
    return None


def _made(form: str, m: re.Match[str], sentence: str) -> Retraction | None:
    """The retraction a form matched in ``sentence`` says, or None when it says none after all."""
    if form == "disposed" and _REPLACED.search(sentence):
        return None  # "I sold my old bike and bought a new one"
    rest = _CUT.split(m["rest"].strip(), maxsplit=1)[0].strip()
    verb, thing = _verb_and_thing(form, m, rest)
    if form == "stopped" and verb is None and m["stop"].lower() in ("stopped", "ceased"):
        return None  # "I stopped by the shop": a stop, not an end
    if verb is None and not _content(thing):
        return None
    return Retraction(m["subj"], verb, thing, form)


def _verb_and_thing(form: str, m: re.Match[str], rest: str) -> tuple[str | None, str]:
    """The lemma of the verb that stopped and the words after it."""
    if form == "disposed":
        return "have", rest
    first, _, after = rest.partition(" ")
    if form == "stopped":
        if first.lower().endswith("ing") and len(first) > 4:
            return lemma(first), after.strip()
        return None, rest
    if m["be"]:
        if first.lower().endswith("ing") and len(first) > 4:  # "I'm not living in Porto any more"
            return lemma(first), after.strip()
        return "be", rest
    return lemma(first), after.strip()


@lru_cache(maxsize=4096)
def lemma(word: str) -> str:
    """A verb's lemma ("using" -> "use", "sold" -> "sell", "ate" -> "eat"), by lemminflect's English
    tables; the word itself, lower case, when they have none."""
    from lemminflect import getLemma  # loaded on the first retraction read, never at start-up

    found = getLemma(word.lower(), upos="VERB")
    return str(found[0]) if found else word.lower()


def retracts(found: Retraction, text: str, predicate: str | None = None) -> bool:
    """Whether a memory worded ``text`` states what ``found`` says stopped: every word of the thing's
    head ("the Volvo" -> Volvo; "Notion for my notes" -> Notion; "in Porto" -> Porto) in its words,
    and its verb the same (or one of the same sense: like/love, live/reside), any verb for a state
    ("I'm no longer vegetarian"), a verb of having for a possession given away. A thing said only
    as a pronoun ("Mel no longer works there") leaves the verb to decide."""
    head = _head(found.thing)
    if not holds_thing(found, text):
        return False
    if found.verb is None or found.verb == "be":
        return bool(head)
    lemmas = {lemma(w) for w in _words(text)}
    if found.verb == "have":
        return bool(head) and bool(lemmas & _HAVING)
    same = next((group for group in _SAME_VERB if found.verb in group), frozenset({found.verb}))
    return bool(lemmas & same) or _keyed_verb(found.verb, predicate)


def holds_thing(found: Retraction, text: str) -> bool:
    """Whether words ``text`` hold every word of the head of the thing that stopped (true of any text
    when the thing is only a pronoun: "Mel no longer works there")."""
    return _head(found.thing) <= _words(text)


def _keyed_verb(verb: str, predicate: str | None) -> bool:
    """Whether a memory's key names the verb's relation ("works_at" for "work")."""
    return bool(predicate) and (predicate or "").split("_")[0].rstrip("s") == verb


def person(text: str) -> str | None:
    """Whom words are about, a person: "user" for "User's editor is Vim" (an attribute of the user),
    "user's sister" for "User's sister lives in Porto" (another person); None when they do not say."""
    about = who(text)
    if about is None:
        return None
    owner, _, of = about.partition("'s ")
    return about if of in _RELATIONS else owner


def same_person(text: str, memory_text: str) -> bool:
    """Whether a retraction worded ``text`` may speak of a memory worded ``memory_text`` (any backend's
    DELETE): they are about the same person, the memory is about a relation of the retraction's person
    ("User is no longer with Anna" and "User's partner is Anna"), or one names the other's ("Anna is no
    longer User's partner"). "Mel no longer works at Acme" never speaks of "User works at Acme", nor
    "User's sister no longer lives in Porto" of "User lives in Porto". When either does not say whom,
    it may."""
    a, b = person(text), person(memory_text)
    if a is None or b is None or a == b or b.partition("'s ")[0] == a:
        return True
    return names(text, b) or names(memory_text, a)


def names(text: str, person: str) -> bool:
    """``person`` in ``text`` as the one spoken of: "User's partner" names "user's partner", never "user"."""
    pattern = r"(?<![\w'-])" + re.escape(person) + r"(?!['\u2019]s\b)(?![\w-])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _head(thing: str) -> set[str]:
    """The content words of a thing's head: without an opening preposition, up to the next one; past a
    word that names no thing of its own ("my job at Acme" -> Acme)."""
    rest = re.sub(r"^" + _PREPOSITION + r"\s+", "", thing.strip(), flags=re.IGNORECASE)
    head, *after = re.split(r"\s+" + _PREPOSITION + r"\s+", rest, maxsplit=1, flags=re.IGNORECASE)
    words = _content(head)
    return _head(after[0]) if words and words <= _GENERIC and after else words


def _content(phrase: str) -> set[str]:
    return {w for w in _words(phrase) if w not in _FUNCTION_WORDS}


def _words(text: str) -> set[str]:
    """Words lower case, a plural's -s dropped ("notes" and "note" meet)."""
    out = set()
    for w in _WORD.findall(text):
        w = w.lower().replace("\u2019", "'")
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def replaced(content: str) -> bool:
    """Whether a message says a possession was replaced ("… and bought a new one")."""
    return _REPLACED.search(content) is not None


def _sentences(quote: str) -> list[str]:
    text = unicodedata.normalize("NFKC", quote).replace("\u2019", "'")
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    parts = re.split(r"(?<=[.!?])\s+|;\s+", text)
    return [p.strip().rstrip(".!…").strip() for p in parts if p.strip()]
