"""A deterministic generated set for the truth benchmark (``veramem bench --only truth``).

Each scenario is one subject (where a user lives, their editor, their partner …) of its own user,
told through a sequence of messages, with the value that is current at the end, the values that
were current before (stale), the value a person rejected, and the question asked. Kinds:

- ``chain``: 1–4 updates, with or without the assistant echoing each, some phrased as corrections;
- ``reject``: a value stated, replaced by one the person rejects, then restated verbatim, in other
  case, with a look-alike letter, by a tool, in a document, or paraphrased;
- ``claims``: the user's value (approved by the person or not), then a tool's or the assistant's
  different value repeated 1–6 times;
- ``asof``: dated messages imported out of today's time, with "as of" questions between them;
- ``retract`` (``retractions``, a set of its own so the kinds above stay as they were): a value
  stated, then a message saying it no longer holds and what holds instead, its wording put together
  from a negation, a joiner and a new value's phrasing ("I don't work at X anymore; I joined Y.");
- ``wordings``: the retraction forms those leave out ("I sold the X", "I stopped using X", "I'm no
  longer X"), and ``kept``: sentences that only look like one ("Mel no longer works at X", "If I sold
  the X, …"), after which the value still holds.

Values are invented words, so no two scenarios share one and none is an English word. Every user
also states one or two other subjects, so a question must find its own subject among several.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

#: per subject: a first statement, update phrasings, the assistant's echo, a third-person claim
#: (tools, documents), a paraphrase, and the question
SUBJECTS: dict[str, dict[str, object]] = {
    "home": {
        "state": "I live in {v}.",
        "update": ["I live in {v} now.", "I moved to {v}.", "Actually, I live in {v}."],
        "echo": "Noted, you live in {v}.",
        "claim": "The user lives in {v}.",
        "para": "I reside in {v}.",
        "question": "Where do I live?",
    },
    "employer": {
        "state": "I work at {v}.",
        "update": ["I work at {v} now.", "I now work at {v}.", "Correction: I work at {v}."],
        "echo": "Got it, you work at {v}.",
        "claim": "The user works at {v}.",
        "para": "I am working at {v}.",
        "question": "Where do I work?",
    },
    "partner": {
        "state": "My partner is {v}.",
        "update": ["My partner is {v} now.", "Actually, my partner is {v}."],
        "echo": "Noted, your partner is {v}.",
        "claim": "The user's partner is {v}.",
        "para": "My partner's name is {v}.",
        "question": "Who is my partner?",
    },
    "editor": {
        "state": "My editor is {v}.",
        "update": ["My editor is {v} now.", "Actually, my editor is {v}."],
        "echo": "Okay, your editor is {v}.",
        "claim": "The user's editor is {v}.",
        "para": "The editor I use is {v}.",
        "question": "Which editor do I use?",
    },
    "diet": {
        "state": "My diet is {v}.",
        "update": ["My diet is {v} now.", "Actually, my diet is {v}."],
        "echo": "Noted, your diet is {v}.",
        "claim": "The user's diet is {v}.",
        "para": "I follow a {v} diet.",
        "question": "What is my diet?",
    },
    "colour": {
        "state": "My favourite colour is {v}.",
        "update": ["My favourite colour is {v} now.", "Actually, my favourite colour is {v}."],
        "echo": "Lovely, your favourite colour is {v}.",
        "claim": "The user's favourite colour is {v}.",
        "para": "The colour I like best is {v}.",
        "question": "What is my favourite colour?",
    },
    "car": {
        "state": "My car is a {v}.",
        "update": ["My car is a {v} now.", "Actually, my car is a {v}."],
        "echo": "Noted, your car is a {v}.",
        "claim": "The user's car is a {v}.",
        "para": "I drive a {v}.",
        "question": "What car do I have?",
    },
}
#: per subject: ways to say the value stopped being true ({old}), and ways to say what holds instead
#: ({new}); a retraction message joins one of each
RETRACTIONS: dict[str, tuple[list[str], list[str]]] = {
    "home": (
        ["I no longer live in {old}", "I don't live in {old} anymore", "I'm not living in {old} any more"],
        ["I moved to {new} last month", "I'm in {new} these days", "I relocated to {new}"],
    ),
    "employer": (
        ["I no longer work at {old}", "I don't work at {old} anymore", "I'm not working at {old} any more"],
        ["I joined {new} last week", "I started at {new} in May", "I'm at {new} now"],
    ),
    "partner": (
        ["{old} is no longer my partner", "I'm not with {old} anymore", "My partner is no longer {old}"],
        ["I'm dating {new}", "I'm with {new} now", "I'm seeing {new} these days"],
    ),
    "editor": (
        ["I no longer use {old}", "I don't use {old} anymore", "I'm not using {old} anymore"],
        ["I switched to {new}", "I write code in {new} now", "I work in {new} now"],
    ),
    "diet": (
        ["My diet is no longer {old}", "I don't eat {old} anymore", "I no longer eat {old}"],
        ["I went {new}", "I eat {new} now", "I follow {new} these days"],
    ),
    "colour": (
        [
            "My favourite colour is no longer {old}",
            "{old} is no longer my favourite colour",
            "I no longer love {old}",
        ],
        ["I prefer {new} now", "I like {new} best", "{new} is what I like now"],
    ),
    "car": (
        ["I no longer drive a {old}", "I don't have the {old} anymore", "I don't drive a {old} anymore"],
        ["I bought a {new}", "I got a {new}", "I drive a {new} now"],
    ),
}
#: ``wordings`` (a set of its own, so the retractions above stay as they were): per subject, the forms
#: those leave out ({old}: a possession sold or given away, an activity stopped, a state or a liking
#: no longer held), each joined to one of the subject's ways of saying what holds instead; then
#: sentences that only look like a retraction (another person's, a question, a hypothetical, a stop
#: by, a sale with a replacement), after which the value still holds
WORDINGS: dict[str, tuple[list[str], list[str]]] = {
    "home": (
        ["I stopped living in {old}", "I'm not in {old} anymore"],
        ["My sister no longer lives in {old}", "If I stopped living in {old}, I would miss it"],
    ),
    "employer": (
        ["I quit {old}", "I stopped working at {old}", "I'm no longer at {old}"],
        ["Mel no longer works at {old}", "I stopped by {old} to see a friend", "Should I quit {old}?"],
    ),
    "partner": (
        ["I'm no longer with {old}", "I stopped seeing {old}"],
        ["Mel is no longer with {old}", "If I stopped seeing {old}, I would be sad"],
    ),
    "editor": (
        ["I stopped using {old}", "I gave up {old}", "I quit using {old}"],
        ["Mel stopped using {old}", "Should I stop using {old}?"],
    ),
    "diet": (
        ["I'm no longer {old}", "I'm not {old} anymore", "I stopped being {old}"],
        ["My brother is no longer {old}", "If I stopped being {old}, I would eat more"],
    ),
    "colour": (
        ["I don't like {old} anymore", "I've stopped liking {old}"],
        ["Mel doesn't like {old} anymore", "I stopped by a shop painted {old}"],
    ),
    "car": (
        [
            "I sold the {old}",
            "I got rid of my {old}",
            "I gave away the {old}",
            "I don't have the {old} anymore",
        ],
        [
            "I sold my old {old} and bought a new one",
            "If I sold the {old}, I would buy a bike",
            "Mel sold the {old}",
        ],
    ),
}
_JOINERS = ("; ", ". ", ", and ")
RESTATEMENTS = ("verbatim", "case", "homoglyph", "tool", "document", "paraphrase")
_SYLLABLES = (
    "bra",
    "cor",
    "del",
    "fen",
    "gal",
    "hir",
    "jov",
    "kel",
    "lum",
    "mar",
    "nov",
    "pel",
    "quin",
    "ros",
    "sal",
    "tev",
    "ulm",
    "var",
    "wen",
    "yor",
    "zan",
    "tor",
    "vin",
    "gar",
    "bel",
    "dru",
)
#: Latin letters and Cyrillic look-alikes
_LOOKALIKE = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "c": "\u0441", "p": "\u0440"}


@dataclass
class Step:
    role: str
    content: str
    name: str | None = None
    time: str | None = None
    #: after this message, a person rejects the memory holding this value
    reject: str | None = None
    #: after this message, a person approves the memory holding this value
    approve: str | None = None


@dataclass
class Scenario:
    kind: str
    variant: str
    user: str
    subject: str
    question: str
    steps: list[Step]
    current: str
    stale: list[str] = field(default_factory=list)
    rejected: str | None = None
    #: values of lower authority that must not rank above the current one
    claims: list[str] = field(default_factory=list)
    #: (moment, value valid then) for ``asof``
    as_of: list[tuple[str, str]] = field(default_factory=list)


class _Words:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def __call__(self) -> str:
        while True:
            word = "".join(self.rng.choice(_SYLLABLES) for _ in range(self.rng.choice((2, 3)))).capitalize()
            if word not in self.used:
                self.used.add(word)
                return word


def _say(subject: str, part: str, value: str, rng: random.Random) -> str:
    template = SUBJECTS[subject][part]
    if isinstance(template, list):
        template = rng.choice(template)
    return str(template).format(v=value)


def _lookalike(value: str) -> str:
    for i, ch in enumerate(value):
        if ch.lower() in _LOOKALIKE and i > 0:
            return value[:i] + _LOOKALIKE[ch.lower()] + value[i + 1 :]
    return value


def _others(subject: str, words: _Words, rng: random.Random) -> list[Step]:
    """One or two other subjects the same user states, so the question must find its own."""
    others = [s for s in SUBJECTS if s != subject]
    return [Step("user", _say(s, "state", words(), rng)) for s in rng.sample(others, rng.choice((1, 2)))]


def retraction(subject: str, old: str, new: str, rng: random.Random) -> tuple[str, str]:
    """A message saying ``old`` no longer holds and ``new`` does, and the name of its wording."""
    stops, holds = RETRACTIONS[subject]
    i, j, k = rng.randrange(len(stops)), rng.randrange(len(holds)), rng.randrange(len(_JOINERS))
    second = holds[j].format(new=new)
    joiner = _JOINERS[k]
    if joiner == ". ":
        second = second[0].upper() + second[1:]
    return f"{stops[i].format(old=old)}{joiner}{second}.", f"{i}{j}{k}"


def retractions(n: int = 70, seed: int = 20261201) -> list[Scenario]:
    """``n`` scenarios of kind ``retract``, the same for the same seed: a value, maybe echoed by the
    assistant, maybe another subject's message after it, then its retraction naming what holds now."""
    rng = random.Random(seed)
    words = _Words(rng)
    out: list[Scenario] = []
    for i in range(n):
        subject = rng.choice(list(RETRACTIONS))
        old, new = words(), words()
        steps = _others(subject, words, rng)
        steps.append(Step("user", _say(subject, "state", old, rng)))
        echo = rng.random() < 0.3
        if echo:
            steps.append(Step("assistant", _say(subject, "echo", old, rng)))
        if rng.random() < 0.3:  # something else said between the value and its retraction
            steps += _others(subject, words, rng)[:1]
        said, wording = retraction(subject, old, new, rng)
        steps.append(Step("user", said))
        question = str(SUBJECTS[subject]["question"])
        variant = f"{wording}{'-echo' if echo else ''}"
        out.append(
            Scenario("retract", variant, f"retract{i:04d}", subject, question, steps, new, stale=[old])
        )
    return out


def wordings(seed: int = 20261203) -> list[Scenario]:
    """Every wording of :data:`WORDINGS` once, the same for the same seed, each subject in turn: kind
    ``retract`` (the value retracted and replaced; the old one is stale) or ``kept`` (a sentence that
    only looks like a retraction; the value still holds)."""
    rng = random.Random(seed)
    words = _Words(rng)
    out: list[Scenario] = []
    forms = [
        (s, kind, i)
        for s, (stops, kept) in WORDINGS.items()
        for kind, said in (("retract", stops), ("kept", kept))
        for i in range(len(said))
    ]
    forms.sort(key=lambda f: (f[2], f[1], list(WORDINGS).index(f[0])))
    for n, (subject, kind, i) in enumerate(forms):
        old = words()
        steps = _others(subject, words, rng)
        steps.append(Step("user", _say(subject, "state", old, rng)))
        question = str(SUBJECTS[subject]["question"])
        stops, kept = WORDINGS[subject]
        if kind == "kept":
            steps.append(Step("user", kept[i].format(old=old) + ("" if kept[i].endswith("?") else ".")))
            out.append(Scenario("kept", f"{subject}{i}", f"worded{n:04d}", subject, question, steps, old))
            continue
        new = words()
        holds = RETRACTIONS[subject][1]
        second = rng.choice(holds).format(new=new)
        joiner = rng.choice(_JOINERS)
        if joiner == ". ":
            second = second[0].upper() + second[1:]
        steps.append(Step("user", f"{stops[i].format(old=old)}{joiner}{second}."))
        out.append(
            Scenario("retract", f"{subject}{i}", f"worded{n:04d}", subject, question, steps, new, stale=[old])
        )
    return out


def generate(n: int = 330, seed: int = 20261130) -> list[Scenario]:
    """``n`` scenarios (at least 300 for the README's figures), the same for the same seed."""
    rng = random.Random(seed)
    words = _Words(rng)
    kinds = ["chain"] * 12 + ["reject"] * 9 + ["claims"] * 6 + ["asof"] * 6
    out: list[Scenario] = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        subject = rng.choice(list(SUBJECTS))
        user = f"truth{i:04d}"
        question = str(SUBJECTS[subject]["question"])
        steps = _others(subject, words, rng)
        if kind == "chain":
            values = [words() for _ in range(rng.randint(2, 5))]
            echo = rng.random() < 0.5
            for j, value in enumerate(values):
                steps.append(Step("user", _say(subject, "state" if j == 0 else "update", value, rng)))
                if echo:
                    steps.append(Step("assistant", _say(subject, "echo", value, rng)))
            out.append(
                Scenario(
                    kind,
                    "echo" if echo else "plain",
                    user,
                    subject,
                    question,
                    steps,
                    values[-1],
                    stale=values[:-1],
                )
            )
        elif kind == "reject":
            good, bad = words(), words()
            variant = RESTATEMENTS[(i // len(kinds)) % len(RESTATEMENTS)]
            steps += [
                Step("user", _say(subject, "state", good, rng)),
                Step("user", _say(subject, "update", bad, rng), reject=bad),
            ]
            restated = {
                "verbatim": Step("user", _say(subject, "state", bad, rng)),
                "case": Step("user", _say(subject, "state", bad, rng).upper()),
                "homoglyph": Step("user", _say(subject, "state", _lookalike(bad), rng)),
                "tool": Step("tool", _say(subject, "claim", bad, rng), name="profile"),
                "document": Step("document", _say(subject, "claim", bad, rng), name="notes.md"),
                "paraphrase": Step("user", _say(subject, "para", bad, rng)),
            }[variant]
            steps.append(restated)
            out.append(Scenario(kind, variant, user, subject, question, steps, good, rejected=bad))
        elif kind == "claims":
            mine, theirs = words(), words()
            approved = rng.random() < 0.5
            role = rng.choice(("tool", "assistant"))
            steps.append(Step("user", _say(subject, "state", mine, rng), approve=mine if approved else None))
            for _ in range(rng.randint(1, 6)):
                steps.append(
                    Step(
                        role, _say(subject, "claim", theirs, rng), name="profile" if role == "tool" else None
                    )
                )
            out.append(
                Scenario(
                    kind,
                    f"{role}{'-approved' if approved else ''}",
                    user,
                    subject,
                    question,
                    steps,
                    mine,
                    claims=[theirs],
                )
            )
        else:
            values = [words() for _ in range(3)]
            times = ["2024-01-10T09:00:00Z", "2024-06-01T09:00:00Z", "2025-02-01T09:00:00Z"]
            for j, (value, when) in enumerate(zip(values, times, strict=True)):
                steps.append(
                    Step("user", _say(subject, "state" if j == 0 else "update", value, rng), time=when)
                )
            as_of = [("2024-03-01", values[0]), ("2024-09-01", values[1]), ("2025-06-01", values[2])]
            out.append(
                Scenario(
                    kind, "import", user, subject, question, steps, values[-1], stale=values[:-1], as_of=as_of
                )
            )
    return out


#: ``speakers``: subjects and how a question about a named person or the user asks for them
SPEAKER_QUESTIONS: dict[str, tuple[str, str]] = {
    "home": ("Where does {n} live?", "Where do I live?"),
    "employer": ("Where does {n} work?", "Where do I work?"),
    "partner": ("Who is {n}'s partner?", "Who is my partner?"),
    "car": ("What car does {n} have?", "What car do I have?"),
}
SPEAKER_NAMES = ("Mel", "Caroline", "Dario", "Priya", "Tomas", "Ines", "Kofi", "Hana")


@dataclass
class SpeakerScenario:
    """Several people in one conversation (named speakers and the unnamed user, ``""``) each stating a
    value of the same subject, some changing their own later; ``adds`` are the ``Memory.add`` calls."""

    variant: str
    user: str
    subject: str
    adds: list[list[Step]]
    #: person ("" for the user) -> the value that holds for them at the end
    current: dict[str, str]
    #: person -> values of theirs that were replaced
    stale: dict[str, list[str]] = field(default_factory=dict)

    def question(self, person: str) -> str:
        named, mine = SPEAKER_QUESTIONS[self.subject]
        return named.format(n=person) if person else mine


def speakers(n: int = 32, seed: int = 20261202) -> list[SpeakerScenario]:
    """``n`` conversations of 2-3 named speakers and the user, the same for the same seed. Variants
    cross how the statements arrive (``one-add``: one ``Memory.add``; ``separate``: one add each),
    whether two named speakers say the very same sentence (``same``), and whether some speakers later
    change their own value (``change``), each phrasing drawn from the subject's state/update forms."""
    rng = random.Random(seed)
    words = _Words(rng)
    subjects = list(SPEAKER_QUESTIONS)
    out: list[SpeakerScenario] = []
    for i in range(n):
        subject = subjects[(i + i // 8) % len(subjects)]  # every subject meets every variant in 32
        together, same, change = i % 2 == 0, (i // 2) % 2 == 0, (i // 4) % 2 == 0
        people = [*rng.sample(SPEAKER_NAMES, rng.choice((2, 3))), ""]
        rng.shuffle(people)
        first = {p: words() for p in people}
        if same:  # two named speakers say the same sentence
            a, b = [p for p in people if p][:2]
            first[b] = first[a]
        said = {p: Step("user", _say(subject, "state", first[p], rng), name=p or None) for p in people}
        if same:
            said[b] = Step("user", said[a].content, name=b)
        adds = [[said[p] for p in people]] if together else [[said[p]] for p in people]
        current, stale = dict(first), {p: list[str]() for p in people}
        if change:
            for p in rng.sample(people, rng.choice((1, 2))):
                new = words()
                adds.append([Step("user", _say(subject, "update", new, rng), name=p or None)])
                stale[p].append(current[p])
                current[p] = new
        variant = "-".join(
            [
                "one-add" if together else "separate",
                *(["same"] if same else []),
                *(["change"] if change else []),
            ]
        )
        out.append(SpeakerScenario(variant, f"speakers{i:04d}", subject, adds, current, stale))
    return out
