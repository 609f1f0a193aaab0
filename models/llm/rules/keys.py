"""Subject / predicate / value for sentences with a simple shape.

A user's first-person statement ("I live in Berlin", "my sister Ana", "I'm a nurse")
gives a key about the user. So does an assistant's or a tool's second-person statement
("You live in Berlin"): it is read with "you" as "I" and the speaker's own "I" set aside,
so the assistant talking about itself never gives a key about the user.
"""

from __future__ import annotations

import re

from veramem_desktop.models.llm.rules.lexicon import ADVERBS, TIME
from veramem_desktop.models.llm.rules.text import stem, words

Key = tuple[str | None, str | None, str | None]
NO_KEY: Key = (None, None, None)

_NEG = r"(?P<neg>no longer |don't |do not |never |not )?"
_VALUE = r"(?P<value>[^.,;!?]+)"
_NAME = r"(?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)"
_CUT = re.compile(
    r"\s+(?:and|but|because|since|for|with|when|while|so|though|although|until|anymore|any more|now|"
    r"yesterday|today|tomorrow|last|next|this|ago|these days|at the moment)\b.*$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|a|an|some|my)\s+", re.IGNORECASE)

_PETS = r"(?:dog|puppy|pup|cat|kitten|kitty|hamster|rabbit|bunny|parrot|bird|fish|turtle|tortoise|horse|pony|guinea pig|snake|lizard|ferret)"
RELATIONS = (
    r"(?:mother|mom|mum|father|dad|sister|brother|wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|spouse|"
    r"son|daughter|kid|child|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|niece|nephew|"
    r"best friend|friend|roommate|flatmate|boss|colleague|coworker|co-worker|neighbou?r)"
)
# Several words for one relation, so "my mum" and "my mother" meet.
_RELATION_NAMES = {
    "mom": "mother",
    "mum": "mother",
    "dad": "father",
    "grandma": "grandmother",
    "grandpa": "grandfather",
    "fiancee": "fiance",
    "fiancée": "fiance",
    "fiancé": "fiance",
    "co-worker": "coworker",
    "neighbor": "neighbour",
    "flatmate": "roommate",
    "kid": "child",
}
# Capitalised words after "my sister" that are not her name.
_NOT_NAMES_TEXT = """
    I I'm I've I'd I'll The A An And But So Or It It's He She They We You Monday Tuesday Wednesday
    Thursday Friday Saturday Sunday Mom Dad
"""
NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())

_OCCUPATIONS_TEXT = """
    teacher nurse doctor physician engineer developer programmer designer artist painter sculptor writer
    author novelist poet journalist reporter lawyer attorney accountant student chef cook baker waiter
    waitress barista bartender musician singer songwriter dancer actor actress photographer architect
    scientist researcher professor lecturer librarian pharmacist dentist therapist counselor counsellor
    psychologist psychiatrist surgeon vet veterinarian firefighter policeman policewoman cop pilot driver
    mechanic electrician plumber carpenter farmer manager consultant analyst entrepreneur freelancer
    editor translator tutor coach trainer instructor paramedic soldier intern cashier clerk secretary
    receptionist salesman saleswoman realtor banker economist worker technician officer detective
    programmer scientist biologist chemist physicist mathematician historian nanny caregiver midwife
    hairdresser stylist tailor plumber builder gardener janitor cleaner volunteer retiree pastor priest
"""
_PRONOUNS_TEXT = """
    it that this them him her you us those these everything
"""
_PRONOUNS = frozenset(_PRONOUNS_TEXT.split())
_OCCUPATIONS = frozenset(_OCCUPATIONS_TEXT.split())

_ATTRIBUTES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bmy name is " + _NAME), "name"),
    (re.compile(r"\b(?:I'm|I am) called " + _NAME), "name"),
    (re.compile(r"\b(?:I'm|I am) (?P<value>\d{1,3}) years? old\b", re.IGNORECASE), "age"),
    (
        re.compile(
            r"\bI (?:currently |now |still )?"
            + _NEG
            + r"(?:live|am living|'m living|reside|am residing|'m residing) in "
            + _VALUE,
            re.I,
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
    (
        re.compile(r"\b(?:I'm|I am) (?:now |currently )?(?:employed|working) (?:at|by|for) " + _VALUE, re.I),
        "works_at",
    ),
    (
        re.compile(
            r"\bI(?:'ve| have)? (?:just |recently )?(?:got|found|started|took|accepted) (?:a |the |my )?"
            r"(?:new )?(?:job|position|role|work|working) (?:at|with|for) " + _VALUE,
            re.I,
        ),
        "works_at",
    ),
    (re.compile(r"\bI work as (?:an? )?" + _VALUE, re.I), "occupation"),
    (re.compile(r"\b(?:I'm|I am) (?:now |happily )?married to " + _NAME), "relation:spouse"),
    (re.compile(r"\bI (?:now |currently )?drive (?:an? |the )?" + _VALUE, re.I), "car"),
    (
        re.compile(
            r"\b(?:I'm|I am) (?:now |currently |strictly |fully )?(?:an? )?"
            r"(?P<value>vegan|vegetarian|pescatarian|pescetarian|carnivore|omnivore|flexitarian|keto|"
            r"gluten[- ]free|lactose[- ]free|dairy[- ]free|halal|kosher)\b",
            re.I,
        ),
        "diet",
    ),
    (
        re.compile(
            r"\b(?:I'm|I am) " + _NEG + r"(?:severely |very |mildly |slightly )?allergic to " + _VALUE, re.I
        ),
        "allergic_to",
    ),
    (
        re.compile(r"\bI (?:" + ADVERBS + r"\s+)*" + _NEG + r"(?:like|love|enjoy|adore) " + _VALUE, re.I),
        "likes",
    ),
    (
        re.compile(
            r"\bI (?:" + ADVERBS + r"\s+)*(?:hate|dislike|detest|can't stand|cannot stand) " + _VALUE, re.I
        ),
        "dislikes",
    ),
]
_PREFER = re.compile(
    r"\bI(?: " + ADVERBS + r")* prefer (?P<value>[^.,;!?]+?)(?:\s+(?:to|over|rather than|instead of)\s+"
    r"(?P<alt>[^.,;!?]+))?(?=[.,;!?]|$)",
    re.IGNORECASE,
)
# "I'm a nurse", "I am a software engineer at Acme": a short noun phrase ending in an occupation.
_I_AM_A = re.compile(
    r"\b(?:I'm|I am) (?:now |currently |still |also |actually )?an? "
    r"(?P<value>(?:[A-Za-z-]+ ){0,2}?(?P<head>[a-z]+))(?=\s*(?:[.,;!-]|$)|\s+(?:at|in|for|with|and|by|from|who|since|"
    r"working|now)\b)"
)
# "I have a dog named Rex", "I've got a cat called Tom", "I adopted a puppy named Pixel".
_PET = re.compile(
    r"\bI(?:'ve| have)? (?:just |recently |finally |also )?(?:have|got|adopted|own|rescued|have got|'ve got) "
    r"(?:a |an |two |another )?(?:new |little |sweet |rescue |young |old )?" + _PETS + r"s? "
    r"(?:named|called) " + _NAME
)
# "my sister's name is Ana", "my dog's name is Rex".
_MY_X_NAME_IS = re.compile(r"\b[Mm]y (?P<rel>" + RELATIONS + r"|" + _PETS + r")'s name is " + _NAME)
# "my sister Ana", "my dog, Rex,": a name right after the relation.
_MY_X_NAME = re.compile(r"\b[Mm]y (?P<rel>" + RELATIONS + r"|" + _PETS + r"),? " + _NAME)
_IS_PET = re.compile(r"^" + _PETS + r"$", re.IGNORECASE)
# "Ana is my sister", "Rex is our dog": the name first, at the start of the statement.
_NAME_IS_MY_X = re.compile(
    r"(?:^|[,;:]\s*)(?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?) is (?:my|our) "
    r"(?:(?:older|younger|little|big|twin|baby|new)\s+)?(?P<rel>" + RELATIONS + r"|" + _PETS + r")\b"
)
# "I have a sister named Ana", "I've got a brother called Tom".
_HAVE_X_NAMED = re.compile(
    r"\bI(?:'ve| have)? (?:have|got|have got) an? (?:(?:older|younger|little|big|twin)\s+)?"
    r"(?P<rel>" + RELATIONS + r") (?:named|called) " + _NAME
)
_MY_X_IS = re.compile(
    r"\bmy (?P<attr>(?:favou?rite )?[a-z]+(?: [a-z]+)?) (?:is|are) (?:now )?" + _VALUE, re.IGNORECASE
)
_IS_RELATION = re.compile(r"^" + RELATIONS + r"$", re.IGNORECASE)
#: attribute words of "my X is Y" that name the same attribute as a listed statement
_CANONICAL = {
    "home": "lives_in",
    "address": "lives_in",
    "home address": "lives_in",
    "location": "lives_in",
    "city": "lives_in",
    "home town": "lives_in",
    "hometown": "lives_in",
    "place": "lives_in",
    "employer": "works_at",
    "company": "works_at",
    "workplace": "works_at",
    "firm": "works_at",
    "job": "occupation",
    "profession": "occupation",
    "occupation": "occupation",
    "spouse": "relation:spouse",
}


# A value that opens like these is a clause, not a thing: "I love how it looks", "my art is about …".
_CLAUSE_START = re.compile(
    r"^(?:how|that|what|when|where|why|it|is|was|are|to|so|very|really|about|being|getting|going|important|"
    r"awesome|something|main|most|key|always|a mix|the main|the most|such)\b",
    re.IGNORECASE,
)
_LEAD_WORDS = re.compile(
    r"^(?:(?:oh|yeah|yes|well|so|and|but|also|actually|btw|now|anyway|plus|noted|got it|okay|ok|sure|right|"
    r"great|lovely|alright|understood|correction|thanks|thank you|these days|nowadays|today|currently|lately|"
    r"recently|since then|from now on|as of now|at the moment)\b[\s,!.:]*)*$",
    re.I,
)


def _plausible(value: str) -> bool:
    """A short noun phrase, not the start of a clause."""
    return len(value.split()) <= 5 and not _CLAUSE_START.match(value)


def _clean(value: str) -> str | None:
    when = TIME.search(value)
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


def _named(rel: str, name: str) -> Key:
    """The key for "my <relation or pet> <Name>"."""
    name = re.sub(r"'s$", "", name)
    rel = " ".join(rel.lower().split())
    if _IS_PET.match(rel):
        return "user", "pet", name
    return "user", "relation:" + _RELATION_NAMES.get(rel, rel).replace(" ", "_"), name


def _preference(sentence: str) -> Key:
    m = _PREFER.search(sentence)
    if not m or not (value := _clean(m["value"])):
        return NO_KEY
    alt = _clean(m["alt"]) if m["alt"] else None
    topic = "/".join(sorted({_topic(value), _topic(alt)})) if alt else _topic(value)
    return "user", f"preference:{topic}", value


def _listed(sentence: str) -> Key:
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
            if predicate in ("likes", "dislikes"):
                value = re.sub(r"^to\s+", "", value)
                if value.lower() in _PRONOUNS or not _plausible(value):
                    continue  # "I love it", "I love how …": the thing itself is elsewhere
            return "user", predicate, value
    return NO_KEY


def _people_and_pets(sentence: str) -> Key:
    m = _PET.search(sentence)
    if m:
        return "user", "pet", m["value"]
    for pattern in (_MY_X_NAME_IS, _MY_X_NAME, _NAME_IS_MY_X, _HAVE_X_NAMED):
        m = pattern.search(sentence)
        if m and m["value"].split()[0] not in NOT_NAMES:
            return _named(m["rel"], m["value"])
    return NO_KEY


def _occupation(sentence: str) -> Key:
    m = _I_AM_A.search(sentence)
    if m and m["head"] in _OCCUPATIONS:
        return "user", "occupation", m["value"]
    return NO_KEY


def _my_x_is(sentence: str) -> Key:
    m = _MY_X_IS.search(sentence)
    if not m or not (value := _clean(m["value"])) or not _LEAD_WORDS.match(sentence[: m.start()]):
        return NO_KEY  # "my X is Y" opens the sentence; "Showing my art is fun" is not about the art
    return _keyed(m["attr"], value)


def _keyed(attr: str, value: str) -> Key:
    """The key of "my <attr> is <value>", however the statement was worded."""
    if not _plausible(value):
        return NO_KEY
    attr = " ".join(attr.lower().split())
    if _IS_RELATION.match(attr) or _IS_PET.match(attr):
        # "my sister is Ana" names her; "my sister is a nurse" is about her, not a key of the user
        name = re.fullmatch(r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)?", value)
        return _named(attr, value) if name and value.split()[0] not in NOT_NAMES else NO_KEY
    fav = re.match(r"favou?rite (.+)", attr)
    if fav:
        return "user", f"preference:{fav.group(1)}", value
    attr = re.sub(r"^(?:new|current|present|latest|usual) ", "", attr)
    canonical = _CANONICAL.get(attr)
    named = re.sub(r"^(?:in|at|with|for) ", "", value, flags=re.I)
    # "my home is in Porto", "my employer is Acme": the attribute under its one name, when the value
    # names a place or an organisation ("my home is lovely" is about the home, not where it is)
    if canonical is not None and (canonical == "occupation" or named[:1].isupper()):
        return "user", canonical, named
    return "user", attr.replace(" ", "_"), value


_ATTR = r"(?P<attr>(?:favou?rite )?[a-z]+(?: [a-z]+)?)"
#: a change of one attribute, worded as a change: "I switched my editor to Helix", "I now use Helix as my
#: editor", "my editor changed to Helix"
_CHANGED = [
    re.compile(
        r"\bI(?:'ve| have)? (?:just |recently |finally |now )?(?:changed|switched|updated|moved|upgraded|"
        r"replaced) my " + _ATTR + r" (?:over )?to " + _VALUE,
        re.I,
    ),
    re.compile(
        r"\bI (?:now |currently |mostly |mainly )?use (?P<value>[^.,;!?]+?) as my " + _ATTR + r"\b", re.I
    ),
    re.compile(r"\bmy " + _ATTR + r" (?:has )?(?:changed|switched) to " + _VALUE, re.I),
]
#: a labelled line, as tools and documents write them: "Home: Porto", "user.city = Porto"
_LABELLED = re.compile(
    r"^\s*(?:the )?(?:user(?:'s|\.|_| )\s*)?(?P<attr>[A-Za-z][A-Za-z ]{1,28}?)\s*[:=]\s*"
    r"(?P<value>[^.;!?\n]{1,60}?)\s*[.]?\s*$",
    re.I,
)


def _changed(sentence: str) -> Key:
    for pattern in _CHANGED:
        m = pattern.search(sentence)
        if m and (value := _clean(m["value"])):
            return _keyed(m["attr"], value)
    return NO_KEY


def labelled(sentence: str) -> Key:
    """The key of a labelled line a tool or a document wrote about the user ("Home: Porto"), only for the
    attributes known under one name (where one lives, works, one's occupation)."""
    m = _LABELLED.match(sentence.replace("’", "'"))
    if not m:
        return NO_KEY
    attr = " ".join(m["attr"].lower().replace("_", " ").split())
    if _CANONICAL.get(re.sub(r"^(?:new|current|present|latest|usual) ", "", attr)) is None:
        return NO_KEY
    key = _keyed(attr, m["value"].strip())
    return key if key[1] in set(_CANONICAL.values()) else NO_KEY


def attribute(sentence: str) -> Key:
    """(subject, predicate, value) for a user's simple first-person statement, else three Nones."""
    sentence = sentence.replace("’", "'")
    for find in (_preference, _listed, _people_and_pets, _occupation, _my_x_is, _changed):
        key = find(sentence)
        if key != NO_KEY:
            return key
    return NO_KEY


# The speaker's own first person is set aside, then "you" is read as "I".
_SPEAKER_SELF = re.compile(r"\bI(?:'m|'ve|'d|'ll)?\b|\b[Mm]y\b|\b[Mm]ine\b|\b[Mm]e\b|\b[Mm]yself\b")
_YOU_AS_I = [
    (re.compile(r"\b([Yy])ou're\b"), "I'm"),
    (re.compile(r"\b([Yy])ou've\b"), "I've"),
    (re.compile(r"\b([Yy])ou'd\b"), "I'd"),
    (re.compile(r"\b([Yy])ou'll\b"), "I'll"),
    (re.compile(r"\b([Yy])ou are\b"), "I am"),
    (re.compile(r"\b[Yy]ourself\b"), "myself"),
    (re.compile(r"\b[Yy]ours\b"), "mine"),
    (re.compile(r"\b[Yy]our\b"), "my"),
    (re.compile(r"\b[Yy]ou\b"), "I"),
]


def attribute_addressed(sentence: str) -> Key:
    """The key of a second-person statement made to the user: "You live in Berlin" -> lives_in."""
    text = _SPEAKER_SELF.sub("Speaker", sentence.replace("’", "'"))
    if not re.search(r"\b[Yy]ou", text):
        return NO_KEY
    for pattern, replacement in _YOU_AS_I:
        text = pattern.sub(replacement, text)
    return attribute(text)


# A statement about the user in the third person ("The user lives in Madrid", "the user's editor is
# Emacs", "User works as a nurse"), as tools, documents and assistants write them, read as the user's
# own first person so it gets the same key, and a contradiction with what the user said is seen.
_ABOUT_USER = re.compile(r"\b(?:[Tt]he )?[Uu]ser(?:'s|\u2019s)?\b")
_THIRD_TO_FIRST = [
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser(?:'s|\u2019s)\s"), "my "),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser is\b"), "I am"),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser was\b"), "I was"),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser has\b"), "I have"),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser (?:currently |now |still )?(\w+?)ies\b"), r"I \1y"),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser (?:currently |now |still )?(\w+?(?:ch|sh|ss|x))es\b"), r"I \1"),
    (re.compile(r"\b(?:[Tt]he )?[Uu]ser (?:currently |now |still )?(\w+?)s\b"), r"I \1"),
]


def labelled_wording(sentence: str) -> str | None:
    """ "User's home: Porto." for a labelled line about the user ("Home: Porto", "user.city = Porto"),
    so the memory names whom it is about; None for any other sentence."""
    m = _LABELLED.match(sentence.replace("’", "'"))
    if not m or labelled(sentence) == NO_KEY:
        return None
    attr = " ".join(m["attr"].lower().replace("_", " ").split())
    return f"User's {attr}: {m['value'].strip()}."


def attribute_about_user(sentence: str) -> Key:
    """The key of a third-person statement about the user ("The user lives in Madrid" -> lives_in), or
    of a labelled line about them ("Home: Madrid")."""
    text = sentence.replace("\u2019", "'")
    key = labelled(text)
    if key != NO_KEY or not _ABOUT_USER.search(text):
        return key
    text = _SPEAKER_SELF.sub("Speaker", text)
    for pattern, replacement in _THIRD_TO_FIRST:
        text = pattern.sub(replacement, text, count=1)
    return attribute(text)
