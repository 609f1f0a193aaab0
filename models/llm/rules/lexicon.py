"""Word lists and patterns shared by the rule-based extraction modules."""

from __future__ import annotations

import re

# Adverbs that may sit between "I" and a verb ("I really love …").
ADVERBS = (
    r"(?:really|also|absolutely|totally|just|still|do|now|truly|definitely|actually|kind of|sort of|always)"
)

# A time expression: relative ("yesterday", "last week"), named ("next Friday") or a date.
TIME = re.compile(
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
    hurt quit
"""
IRREGULAR_PAST = frozenset(_IRREGULAR_PAST_TEXT.split())

# Words ending in "ed" that are not past tenses.
_NOT_PAST_TEXT = """
    need feed seed bed red shed indeed speed bleed breed proceed succeed exceed
"""
NOT_PAST = frozenset(_NOT_PAST_TEXT.split())

# Common verbs in their base form: a general statement ("Tomatoes need six hours of sun") has one
# even when no pronoun, auxiliary or past tense marks it.
_COMMON_VERBS_TEXT = """
    need want like love hate prefer know think believe feel seem look sound become grow make take give
    get keep let begin start stop end open close run walk talk speak say tell ask answer call help work
    play live die eat drink cook bake sleep wake read write learn teach study build break fix buy sell
    pay cost spend save lose win find use try mean contain include require cause bring carry hold
    move change turn show see hear smell taste touch meet visit travel drive fly ride swim climb leave
    arrive stay wait follow lead rise fall sit stand lie lay grow bloom flower ripen freeze melt boil
    burn shine rain snow flow float sink fill empty last happen occur exist belong depend matter apply
    produce reduce increase protect prevent allow support provide serve offer share add remove enjoy
    attract repel absorb reflect spread connect measure weigh equal orbit rotate migrate hibernate
    cover reach return remain sing dance paint draw plan hope expect remember forget miss own rent
    host join attend train practise practice volunteer adopt raise
"""
COMMON_VERBS = frozenset(_COMMON_VERBS_TEXT.split())

# Verbs whose bare form at the head of a sentence directs the listener to a task: the imperatives of
# a request to an assistant ("Compare …", "Draft …", "Summarise …"). Verbs a person often says of
# themselves with the "I" left out ("Love the new flat", "Work from home on Fridays") are not here.
_DIRECTIVE_VERBS_TEXT = """
    help compare draft write rewrite reword rephrase summarise summarize explain translate suggest
    recommend remind remember tell show give list find search check fix tidy edit proofread polish
    calculate convert generate brainstorm outline describe review analyse analyze format shorten
    expand organise organize sort pick choose prepare design teach book schedule note recap simplify
    correct estimate quiz answer create compose improve clean update make plan research look
    define name count convert continue repeat fill complete proofread critique evaluate assess rank
    rate summarise outline proof spell paraphrase tweak adjust send email text draw sketch map
    walk guide advise forget
"""
DIRECTIVE_VERBS = frozenset(_DIRECTIVE_VERBS_TEXT.split())

# Numbers written as words count as a number does: something a memory may need.
NUMBER_WORDS = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"hundred|thousand|million|dozen|twice)\b",
    re.IGNORECASE,
)


def is_common_verb(word: str) -> bool:
    """``word`` is a common verb, bare or with the third-person -s ("need", "needs", "carries")."""
    w = word.lower()
    if w in COMMON_VERBS:
        return True
    if w.endswith("ies") and w[:-3] + "y" in COMMON_VERBS:
        return True
    if w.endswith("es") and w[:-2] in COMMON_VERBS:
        return True
    return w.endswith("s") and w[:-1] in COMMON_VERBS
