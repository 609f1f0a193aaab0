"""Which sentences are worth a memory: statements, not small talk.

A sentence is dropped when it is a question, a request or instruction to the assistant
(models/llm/rules/requests.py), a greeting or sign-off, an offer of help,
or a reaction to what the other party said ("That sounds great.", "Keep it up!",
"Thanks so much, I really appreciate it!") — unless it also carries something a memory
needs: a number, a date or time, a name, a simple attribute ("I live in …"), or
something of the speaker's ("my sister", "our trip"). Verbless exclamations with no
such signal ("Much fun with the whole gang!") are dropped too.
"""

from __future__ import annotations

import re

from veramem_desktop.models.llm.rules.keys import attribute
from veramem_desktop.models.llm.rules.lexicon import (
    IRREGULAR_PAST,
    NOT_PAST,
    NUMBER_WORDS,
    TIME,
    is_common_verb,
)
from veramem_desktop.models.llm.rules.requests import is_question, is_request
from veramem_desktop.models.llm.rules.text import STOPWORDS, content_words, words

_FILLER_WORDS_TEXT = """
    hi hey hello hiya yo thanks thank bye goodbye ok okay sure yeah yep yes nope wow cool great
    awesome nice amazing lol haha hahaha glad happy sorry welcome good morning evening afternoon
    night congrats congratulations cheers totally definitely absolutely exactly right true agreed
    indeed interesting fun fantastic wonderful lovely sweet perfect oh ah hmm um uh see talk soon
    later care luck
"""
_FILLER_WORDS = frozenset(_FILLER_WORDS_TEXT.split())
# Words of reaction and rapport: a sentence made only of these (and stopwords) says nothing lasting.
_SOCIAL_WORDS_TEXT = """
    appreciate appreciated appreciation compliment compliments concern thoughtful kind sweet proud
    inspiring inspired inspiration support supportive supporting encouragement encouraging words wait
    agree sounds sound looks look seems incredible beautiful gorgeous stunning impressive brave
    exciting excited blast keep going means mean world lot much heart hear hearing share sharing chat
    chatting catch catching talking feel feeling feels know knew think imagine bet hope hoping wish
    wishes love loved best sure thing stuff news well fine super such hug hugs xoxo yay woo woohoo
    omg aw aww awww yup yea ya gonna wanna gotta let tell say mind rock rocks team guys buddy pal
    dude man bro girl friend thankful grateful lucky blessed touched moved wow whoa dear totally
    truly seriously literally absolutely glad happy thrilled stoked fab fabulous brilliant epic
    hilarious funny cute adorable lovely special true important meaningful powerful awful terrible
    tough hard sad rough crazy wild insane unbelievable fascinating interesting inspirational
    remarkable admirable jealous envious miss missed forward looking thinking idea ideas same
    whole gang fam crew vibes vibe day time times moment moments part always again make difference
"""
_SOCIAL_WORDS = frozenset(_SOCIAL_WORDS_TEXT.split()) | _FILLER_WORDS

# Leading interjections and conjunctions, set aside before judging what follows.
_LEAD = re.compile(
    r"^(?:(?:oh|ah|aw+|omg|wow|whoa|haha\w*|lol|yeah|yes|yep|yup|yay|hey|hi|well|so|and|but|also|plus|ok|okay|"
    r"um|uh|hmm|honestly|seriously|man|dude|true|totally|sure|right)\b[\s,!.…-]*)+",
    re.IGNORECASE,
)
# The person addressed, by name: "Hey Mel, …", "…, Jon!" (a name elsewhere is a signal).
_VOCATIVE = re.compile(r"^(?-i:[A-Z][a-z]+)\s*[,!]\s*|\s*,\s*(?-i:[A-Z][a-z]+)(?=\s*(?:[,.!…]|$))")
_OPENERS = re.compile(
    r"^(?:hi|hey|hello|thanks|thank you|thx|bye|goodbye|good (?:morning|night|evening|afternoon)|congrat\w*|"
    r"see you|see ya|talk (?:to you )?soon|take care|good luck|happy (?:birthday|anniversary|holidays|new year)|"
    r"welcome|cheers|nice (?:to|chatting|talking)|great (?:to|chatting|talking)|good to (?:see|hear|talk))\b",
    re.IGNORECASE,
)
_ASSISTANT_FILLER = re.compile(
    r"^(?:(?:i(?:'d| would) be (?:happy|glad)|let me|let's|i can help|i'm here|here(?:'s| is| are)|feel free|"
    r"i hope|hope (?:this|that)|happy to|glad|sorry|as an ai|i understand|of course|certainly|absolutely|"
    r"sure|no problem|you're welcome|please|tell me|try|check|imagine|remember to)\b)",
    re.IGNORECASE,
)
_INTENSIFIERS = (
    r"(?:(?:so|really|very|such|pretty|super|totally|absolutely|just|truly|incredibly|quite|too)\s+)*"
)
# A reaction to what the other party said: "That's so cool", "Sounds fun", "I can imagine …".
_REACTION = re.compile(
    r"^(?:(?:that|this|it|which|(?:that|this|these|those|your) (?:[a-z]+ ){0,2}?[a-z]+)"
    r"(?:'s|’s| is| are| was| were| sounds?| seems?| looks?| must (?:be|have been)| must've been| feels| felt|"
    r" has been|'s been| would be| will be)\s+"
    + _INTENSIFIERS
    + r"(?:an? )?"
    + _INTENSIFIERS
    + r"(?:great|awesome|amazing|cool|nice|wonderful|fantastic|incredible|awful|terrible|sad|tough|hard|"
    r"rough|beautiful|lovely|sweet|brave|exciting|fun|funny|hilarious|interesting|impressive|inspiring|"
    r"important|true|good|adorable|cute|crazy|wild|insane|unbelievable|special|perfect|fascinating|"
    r"touching|powerful|meaningful|huge|awesome|epic|brilliant|fabulous|neat|rad|dope|sick|excellent|"
    r"remarkable|admirable|understandable|breathtaking|gorgeous|stunning|priceless|right|so|such|what|like)\b"
    r"|(?:sounds|looks|seems) (?:like )?"
    r"|what an? |how (?:cool|awesome|amazing|nice|great|fun|sweet|lovely|exciting|wonderful|sad|awful)\b"
    r"|so (?:cool|awesome|amazing|nice|great|fun|sweet|lovely|exciting|proud|happy|glad)\b"
    r"|i (?:can|could) (?:totally |really |just )?(?:imagine|tell|see)\b|i bet\b|i agree\b|i understand\b"
    r"|i hope (?:you|that|it|so|this|they|everything|all)\b"
    r"|i know (?:what you mean|right|how|the feeling|that feeling|you)\b"
    r"|i (?:totally |completely |really )?(?:get|feel) (?:it|that|you)\b|i appreciate\b|i can't wait\b"
    r"|i(?:'m| am) " + _INTENSIFIERS + r"(?:glad|happy|sorry|proud|excited|thrilled|stoked|grateful|"
    r"thankful|lucky|sure|touched|honou?red|impressed)\b"
    r"|i (?:really |just |totally )?love (?:that|this|it|how|your|the idea|hearing|seeing)\b"
    r"|me too\b|same here\b|you too\b|no way\b|of course\b|for sure\b|good for you\b|well done\b|nice one\b"
    r"|(?:sorry|glad|happy|good|great|nice|awesome|cool) to (?:hear|see|know)\b"
    r"|wishing you\b|i believe in\b"
    r"|(?:cool|awesome|great|nice|amazing|wonderful|fantastic|lovely|sweet|neat|glad|happy|congrats)\b"
    r"|way to go\b|keep (?:it up|up|going|pushing|at it|on|rocking|shining)\b|go for it\b|hang in there\b"
    r"|take care\b|stay (?:safe|strong|positive|tuned|awesome)\b|have (?:fun|a (?:great|good|nice|blast))\b"
    r"|enjoy\b|let me know\b|(?:you|we)(?:'ve)? got this\b|rock on\b|can't wait\b|looking forward\b"
    r"|love (?:it|that|this|you)\b|miss you\b|lucky you\b|you rock\b|you're (?:welcome|right|the best)\b)",
    re.IGNORECASE,
)
_SECOND_PERSON_START = re.compile(r"^(?:you|you're|you’re|your|you've|you'll)\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|my|me|we|our)\b")

# What a memory needs, one is enough to keep a sentence that reads like small talk.
_TIME_WORD = re.compile(r"\b(?:noon|midnight|o'clock|[ap]\.?m\.?|weekend|birthday|anniversary)\b", re.I)
_MINE = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?!(?:friend|dear|god|goodness|gosh|pleasure|bad|heart|mind|day|life|best|own|way|"
    r"part|word|thoughts|love|mood|time)\b)[a-z]"
)
_PROPER = re.compile(r"\b[A-Z][A-Za-z+'-]*")
_NOT_PROPER_TEXT = """
    I I'm I've I'd I'll OMG LOL Lol Omg Haha Wow Oh Yes No OK Ok God
"""
_NOT_PROPER = frozenset(_NOT_PROPER_TEXT.split())
_AUX_TEXT = """
    is are was were am be been being have has had do does did will would can could should shall may
    might must isn't aren't wasn't weren't haven't hasn't hadn't don't doesn't didn't won't wouldn't
    can't couldn't shouldn't
"""
_AUX = frozenset(_AUX_TEXT.split())
_SUBJECT_VERB = re.compile(r"\b(?:I|we|you|he|she|they)\s+(?:\w+ly\s+)?[a-z]{2,}\b", re.IGNORECASE)


def _has_name(text: str) -> bool:
    """A capitalised word that is not the first word, a pronoun or the person being addressed."""
    for m in _PROPER.finditer(text):
        word = m.group(0)
        if m.start() == 0 or word in _NOT_PROPER:
            continue
        before, after = text[: m.start()].rstrip(), text[m.end() :].lstrip()
        vocative = before.endswith(",") and (not after or after[0] in ",.!…")
        if not vocative and not re.search(r"\b(?:hey|hi|hello|thanks|bye|go|congrats)$", before, re.I):
            return True
    return False


# Something the speaker did: "I got the job", "we've adopted a puppy" (not "I was", "I felt").
_SPEAKER_DID = re.compile(
    r"\b(?:I|[Ww]e)(?:'ve| have| had|'d)?\s+(?:just |finally |recently |also |actually |really |already )?"
    r"(?P<verb>[a-z]+)\b"
)
_NOT_DEEDS_TEXT = """
    was were felt thought knew meant said told had heard loved liked enjoyed wanted hoped wished
    needed seemed guessed figured realized realised noticed learned learnt
"""
_NOT_DEEDS = frozenset(_NOT_DEEDS_TEXT.split())


# What the speaker means to do: "I want to help", "we're planning to move".
_SPEAKER_PLANS = re.compile(
    r"\b(?:I|[Ww]e)(?:'m| am|'re| are|'ll| will|'d| would)?\s+(?:really |also |still |just )?"
    r"(?:want|wanna|plan|planning|intend|going|gonna|decided|hope|like|love) to\b"
)


def _speaker_did(text: str) -> bool:
    for m in _SPEAKER_DID.finditer(text):
        verb = m["verb"]
        if verb in _NOT_DEEDS:
            continue
        if verb in IRREGULAR_PAST or (verb.endswith("ed") and len(verb) > 3 and verb not in NOT_PAST):
            return True
    return False


def _has_signal(text: str) -> bool:
    """Something a memory needs: a number, a time, a name, an attribute, something of the speaker's."""
    return bool(
        re.search(r"\d", text)
        or NUMBER_WORDS.search(text)
        or TIME.search(text)
        or _TIME_WORD.search(text)
        or _MINE.search(text)
        or _has_name(text)
        or attribute(text) != (None, None, None)
        or _speaker_did(text)
        or _SPEAKER_PLANS.search(text)
    )


# A statement's verb after its subject, in a sentence that ends with a full stop: a third-person -s
# after a noun ("Copper conducts heat well", "The old bridge closes during storms"), or a bare verb
# after a plural subject and before what it governs ("Owls hunt at night").
_NOT_BEFORE_VERB_TEXT = """
    the a an this that these those my our your his her their its some any no every each of in on at to
    for with from by about into over under two three four five six seven eight nine ten many few much
    more most such so very
"""
_NOT_BEFORE_VERB = frozenset(_NOT_BEFORE_VERB_TEXT.split())
_BARE_VERB_AFTER_PLURAL = re.compile(
    r"^(?:[A-Za-z]+\s+){0,2}?[A-Za-z]+s\s+(?P<verb>[a-z]{3,})\s+(?:at|in|on|during|with|for|to|from|by|into|over|"
    r"under|through|around|best|well|only|mostly|often|usually|the|a|an|their|its|each|every)\b"
)


def _statement_verb(text: str) -> bool:
    if not text.rstrip().endswith("."):
        return False
    ws = words(text)
    for i in range(1, min(4, len(ws) - 1)):
        w, before = ws[i], ws[i - 1]
        if (
            len(w) > 3
            and w.endswith("s")
            and not w.endswith(("ss", "us", "is", "'s"))
            and before not in _NOT_BEFORE_VERB
            and before not in _SOCIAL_WORDS
        ):
            return True
    m = _BARE_VERB_AFTER_PLURAL.match(text)
    return m is not None and m["verb"] not in STOPWORDS and m["verb"] not in _SOCIAL_WORDS


#: a pronoun or a negation with its verb, typed without the apostrophe as chat has it ("hes a paramedic",
#: "im off", "dont drive")
_UNMARKED_TEXT = """
    im ive hes shes thats theres whats youre theyre weve theyve dont didnt doesnt isnt wasnt arent havent
    hasnt cant couldnt wont wouldnt shouldnt
"""
_UNMARKED_CONTRACTIONS = frozenset(_UNMARKED_TEXT.split())


def _has_verb(text: str) -> bool:
    if _statement_verb(text):
        return True
    for w in words(text):
        if (
            w in _AUX
            or w in IRREGULAR_PAST
            or w in _UNMARKED_CONTRACTIONS
            or re.search(r"'(?:s|re|m|ve|d|ll)$|n't$", w)
        ):
            return True
        if w.endswith("ed") and len(w) > 3 and w not in NOT_PAST:
            return True
        if is_common_verb(w):
            return True
    return _SUBJECT_VERB.search(text) is not None


def worth_keeping(sentence: str, role: str) -> bool:
    """A statement about the speaker or the world: not a question, greeting, filler, reaction or fragment."""
    return skip_reason(sentence, role) is None


#: the reason given for a sentence of fewer than three words
TOO_SHORT = "too short to state anything"
#: the reason given for a request or instruction to the assistant ("Help me compare …")
REQUEST = "a request to the assistant"


def skip_reason(sentence: str, role: str, *, named: bool = False) -> str | None:
    """Why ``sentence`` gives no memory ("a question", "small talk", …), or None when it is kept. A
    ``named`` user speaks to other people in a conversation of several, not to the assistant, so their
    imperatives ("Check out my painting for the art show!") are not requests to it."""
    if "?" in sentence or is_question(sentence):
        return "a question"
    if len(words(sentence)) < 3:
        return TOO_SHORT
    if role == "user" and not named and is_request(sentence):
        return REQUEST  # a statement a request carries is extracted on its own (requests.statements_in)
    body = _VOCATIVE.sub("", _LEAD.sub("", sentence.replace("’", "'")).strip())
    body = _LEAD.sub("", body).strip()
    courtesy = _courtesy_reason(sentence, body, role)
    if courtesy is not None:
        return courtesy
    if _has_signal(body):
        return None
    return _signal_less_reason(sentence, body)


def _courtesy_reason(sentence: str, body: str, role: str) -> str | None:
    """Why the sentence is only social (filler, greeting, courtesy, words about the other party), or None."""
    if not [w for w in content_words(body) if w not in _FILLER_WORDS]:
        return "small talk"
    if _OPENERS.match(body) and not _FIRST_PERSON.search(body):
        return "a greeting or thanks"
    if _ASSISTANT_FILLER.match(sentence) and (role != "user" or not _has_signal(body)):
        return (
            "an offer of help or a courtesy"  # a user's "Here's a photo of my painting" still says something
        )
    # the user talking about the other party ("You did great!") says nothing lasting about anyone
    if role == "user" and _SECOND_PERSON_START.match(body):
        return "said to the other party about them"
    return None


def _signal_less_reason(sentence: str, body: str) -> str | None:
    """Why a sentence with no signal of a fact is still skipped (reaction, social words, fragment), or None."""
    if _OPENERS.match(body) or _REACTION.match(body):
        return "a reaction to the other party"
    if not [w for w in content_words(body) if w not in _SOCIAL_WORDS]:
        return "small talk"
    short_or_exclaimed = sentence.rstrip().endswith("!") or len(words(body)) <= 6
    if short_or_exclaimed and not _has_verb(body):
        return "an exclamation or fragment with no verb"
    return None
