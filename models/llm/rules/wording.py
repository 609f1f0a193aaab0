"""Third-person wording of a sentence: "I love my job" -> "User loves User's job".

The speaker's "I", "my" and "me" become the speaker's name. When the speaker talks to
the user (an assistant or a tool), "you" and "your" are the user, and the verb after a
subject "you" agrees with the new third-person subject ("You live" -> "User lives").
"""

from __future__ import annotations

import re

from veramem_desktop.models.llm.rules.keys import NOT_NAMES, PARENTS, RELATIONS
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
# A label before the statement ("Correction: …", "Noted: …", "FYI - …") and an acknowledgement
# of it ("Thanks, I have updated that: …"): the statement is what follows.
# A dash counts only with a space before it, so "Note-taking is my hobby" keeps its first word.
_LABEL_END = r"(?:\s*:|\s+[-–—])\s*"
_LABEL = re.compile(
    r"^(?:(?:correction|update|note|noted|fyi|ps|p\.s\.|reminder|edit|heads up|btw)" + _LABEL_END + r")+"
    r"|^(?:(?:thanks|thank you|ok(?:ay)?|got it|understood|noted|sure|done|perfect|great)\b[,!.]*\s+)*"
    r"i(?:'ve| have)\s+(?:updated|noted|saved|changed|recorded|stored|added|remembered|corrected)\s+"
    r"(?:that|this|it)(?:\s+down)?" + _LABEL_END,
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


# "you" and "your" meaning someone named ("{w}"), contractions first so "you're" is not read as "you" + "'re".
_YOU = [
    (re.compile(r"\b[Yy]ou're\b"), "{w} is"),
    (re.compile(r"\b[Yy]ou've\b"), "{w} has"),
    (re.compile(r"\b[Yy]ou'll\b"), "{w} will"),
    (re.compile(r"\b[Yy]ou'd\b"), "{w} would"),
    (re.compile(r"\b[Yy]ou are\b"), "{w} is"),
    (re.compile(r"\b[Yy]ou aren't\b"), "{w} isn't"),
    (re.compile(r"\b[Yy]ou were\b"), "{w} was"),
    (re.compile(r"\b[Yy]ou weren't\b"), "{w} wasn't"),
    (re.compile(r"\b[Yy]ou have\b"), "{w} has"),
    (re.compile(r"\b[Yy]ou haven't\b"), "{w} hasn't"),
    (re.compile(r"\b[Yy]ou don't\b"), "{w} doesn't"),
    (re.compile(r"\b[Yy]ou do not\b"), "{w} does not"),
    (re.compile(r"\b[Yy]ourself\b"), "{w}"),
    (re.compile(r"\b[Yy]ours\b"), "{w}'s"),
    (re.compile(r"\b[Yy]our\b"), "{w}'s"),
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


def addressee_named(text: str, name: str) -> str:
    """``text`` with its "you" and "your" (whom it is said to) named ``name`` in the third person, the verb
    after a subject "you" agreeing with it: "you told me" -> "the assistant told me", "can you help" stays
    a question of "the assistant", "you know" -> "the assistant knows"."""
    for pattern, replacement in _YOU:
        text = pattern.sub(replacement.format(w=name), text)

    def agreeing(m: re.Match[str]) -> str:
        verb = m["verb"]
        return f"{m['pre']}{name} {m['adv']}{verb if verb in _NOT_A_VERB else third_singular(verb)}"

    text = _YOU_VERB.sub(agreeing, text)
    return re.sub(r"\b[Yy]ou\b", name, text)


def third_person(sentence: str, speaker: str, *, addressee_is_user: bool = False) -> str:
    """Rewrite simple first-person wording: "I love my job" -> "User loves User's job".

    When the speaker is talking to the user (an assistant or a tool), "you" and "your"
    are the user too.
    """
    text = sentence.replace("’", "'").strip()
    while True:
        shorter = _LABEL.sub("", _INTERJECTION.sub("", text)).strip()
        if shorter == text or not shorter:
            break
        text = shorter
    if addressee_is_user:
        text = addressee_named(text, "User")
    for pattern, template in _FIXED:
        text = pattern.sub(template.format(s=speaker), text)
    text = _I_VERB.sub(lambda m: f"{speaker} {m['adv']}{third_singular(m['verb'])}", text)
    text = re.sub(r"\bI\b", speaker, text)
    return text[:1].upper() + text[1:]


# --- a leading "she"/"he" resolved to the one relative named just before ----------------------

_FEMALE = "sister mother mom mum mam mummy mommy mama gran granny nan nana wife daughter aunt grandmother grandma niece girlfriend fiancee fiancée"
_MALE = "brother father dad daddy papa granddad grandad husband son uncle grandfather grandpa nephew boyfriend fiance fiancé"
#: the pronoun each relation word takes; the others (friend, partner, boss, …) may take either
_GENDER = {**dict.fromkeys(_FEMALE.split(), "she"), **dict.fromkeys(_MALE.split(), "he")}
_RELATIVE = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:old|little|big|younger|older|elder|twin|late)\s+)?(?P<rel>"
    + RELATIONS
    + r")\b(?:,?\s+(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\b)?"
)
_LEADING_PRONOUN = re.compile(r"^(?P<word>[Ss]he|[Hh]e|[Hh]er|[Hh]is)\b(?P<rest>(?:['’]s\b)?\s+\S)")


#: a parent named as the speaker's own without "my" ("update on mum."), never someone else's ("her mum")
_PARENT = re.compile(
    r"(?<![\w'’])(?P<rel>" + "|".join(sorted(PARENTS, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
_OTHERS = frozenset({"his", "her", "their", "your", "its", "the", "a", "whose"})


def referent(previous: str, pronoun: str) -> str | None:
    """The one relative of the previous sentence that ``pronoun`` ("she" or "he") can stand for,
    as its speaker worded it ("my sister Ana", or "mum" for the speaker's own); None when none or
    several can."""
    fits = [m for m in _RELATIVE.finditer(previous) if _GENDER.get(m["rel"], pronoun) == pronoun]
    bare = [
        m
        for m in _PARENT.finditer(previous)
        if _GENDER.get(m["rel"].lower(), pronoun) == pronoun
        and not any(f.start() <= m.start() < f.end() for f in fits)
        and not _owned_by_another(previous[: m.start()])
    ]
    if len(fits) + len(bare) != 1:
        return None
    if bare:
        return bare[0]["rel"]
    m = fits[0]
    named = m["name"] is not None and m["name"].split()[0] not in NOT_NAMES
    return previous[m.start() : m.end() if named else m.end("rel")]


def _owned_by_another(before: str) -> bool:
    """Whether the words just before a parent word make them someone else's ("her mum", "Tom's dad")."""
    words = before.split()
    return bool(words) and (words[-1].lower() in _OTHERS or words[-1].lower().endswith(("'s", "’s")))


def resolve_leading_pronoun(sentence: str, previous: str) -> str:
    """ "She is allergic to peanuts." after "My sister Ana is visiting." -> "My sister Ana is
    allergic to peanuts." (worded by the speaker: :func:`third_person` comes after). Only a
    sentence-initial she/he/her/his, and only when the previous sentence names exactly one
    relative of a gender that fits; otherwise the sentence is unchanged."""
    m = _LEADING_PRONOUN.match(sentence)
    if m is None:
        return sentence
    word = m["word"].lower()
    phrase = referent(previous, "she" if word in ("she", "her") else "he")
    if phrase is None:
        return sentence
    phrase = phrase[:1].upper() + phrase[1:]
    return (phrase if word in ("she", "he") else f"{phrase}'s") + sentence[m.end("word") :]
