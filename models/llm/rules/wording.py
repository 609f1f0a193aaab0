"""Third-person wording of a sentence: "I love my job" -> "User loves User's job".

The speaker's "I", "my" and "me" become the speaker's name. When the speaker talks to
the user (an assistant or a tool), "you" and "your" are the user, and the verb after a
subject "you" agrees with the new third-person subject ("You live" -> "User lives").
"""

from __future__ import annotations

import re

from veramem_desktop.models.llm.rules.lexicon import IRREGULAR_PAST, NOT_PAST

_NO_CONJUGATION_TEXT = """
    can could will would shall should may might must did was were had used ought
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


def third_singular(verb: str) -> str:
    """The third-person singular present of ``verb`` ("live" -> "lives"); past tenses stay."""
    low = verb.lower()
    special = {"have": "has", "do": "does", "go": "goes", "am": "is", "was": "was", "be": "is"}
    if low in special:
        return special[low]
    if (
        low in _NO_CONJUGATION
        or low in IRREGULAR_PAST
        or (low.endswith("ed") and low not in NOT_PAST)
        or low.endswith("n't")
    ):
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


# "you" and "your" meaning the user, contractions first so "you're" is not read as "you" + "'re".
_YOU = [
    (re.compile(r"\b[Yy]ou're\b"), "User is"),
    (re.compile(r"\b[Yy]ou've\b"), "User has"),
    (re.compile(r"\b[Yy]ou'll\b"), "User will"),
    (re.compile(r"\b[Yy]ou'd\b"), "User would"),
    (re.compile(r"\b[Yy]ou are\b"), "User is"),
    (re.compile(r"\b[Yy]ou aren't\b"), "User isn't"),
    (re.compile(r"\b[Yy]ou were\b"), "User was"),
    (re.compile(r"\b[Yy]ou weren't\b"), "User wasn't"),
    (re.compile(r"\b[Yy]ou have\b"), "User has"),
    (re.compile(r"\b[Yy]ou haven't\b"), "User hasn't"),
    (re.compile(r"\b[Yy]ou don't\b"), "User doesn't"),
    (re.compile(r"\b[Yy]ou do not\b"), "User does not"),
    (re.compile(r"\b[Yy]ourself\b"), "User"),
    (re.compile(r"\b[Yy]ours\b"), "User's"),
    (re.compile(r"\b[Yy]our\b"), "User's"),
]
# A "you" in subject position: at the start, or after a clause boundary or a conjunction.
_YOU_VERB = re.compile(
    r"(?P<pre>^|[,;:(]\s+|\b(?:and|but|that|because|so|if|when|since|as|while|or|now|think|thinks|thought|said|mentioned|"
    r"know|knew|believe|remember|noted|guess)\s+)"
    r"[Yy]ou\s+(?P<adv>" + _BETWEEN + r")(?P<verb>[a-z]+)\b"
)
# Words after a subject "you" that are not verbs to conjugate ("you guys", "you too").
_NOT_A_VERB_TEXT = """
    the a an to and or for too all both guys two three there here again so very
"""
_NOT_A_VERB = frozenset(_NOT_A_VERB_TEXT.split())


def _you_verb(m: re.Match[str]) -> str:
    verb = m["verb"]
    return f"{m['pre']}User {m['adv']}{verb if verb in _NOT_A_VERB else third_singular(verb)}"


def third_person(sentence: str, speaker: str, *, addressee_is_user: bool = False) -> str:
    """Rewrite simple first-person wording: "I love my job" -> "User loves User's job".

    When the speaker is talking to the user (an assistant or a tool), "you" and "your"
    are the user too.
    """
    text = _INTERJECTION.sub("", sentence.replace("’", "'")).strip()
    if addressee_is_user:
        for pattern, replacement in _YOU:
            text = pattern.sub(replacement, text)
        text = _YOU_VERB.sub(_you_verb, text)
        text = re.sub(r"\b[Yy]ou\b", "User", text)
    for pattern, template in _FIXED:
        text = pattern.sub(template.format(s=speaker), text)
    text = _I_VERB.sub(lambda m: f"{speaker} {m['adv']}{third_singular(m['verb'])}", text)
    text = re.sub(r"\bI\b", speaker, text)
    return text[:1].upper() + text[1:]
