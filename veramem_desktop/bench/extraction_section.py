"""The ``extraction`` bench section: what the write path derives from what people say.

A generated set of statements, one per (who said it × what it says × values): the user, the
assistant, a tool and a document, each stating an identity or attribute, a preference with its
reason, a plan, a relationship, a fact about the world or an event, worded from templates with
names and values drawn at random (a fixed seed). Each statement is added through
``Memory.add`` (or ``add_document``) under a user of its own, so nothing else is in scope.

- coverage: a derived memory holds every expected value (case-insensitive);
- wrong subject: among those, the memory says it of someone else than the statement did (the
  user's statement not about "User", a document's first person about the user or its file, a
  fact about the world about a person), or carries a key whose subject is not the one meant.

Targets: coverage ≥ 0.9 and wrong subject ≤ 0.02 over the whole set.
"""

from __future__ import annotations

import random
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..models.llm.rules.wording import third_singular
from .runner import BenchContext, Section

ROLES = ("user", "assistant", "tool", "document")
KINDS = ("attribute", "preference", "plan", "relationship", "world", "event")
COVERAGE_TARGET = 0.9
WRONG_SUBJECT_TARGET = 0.02
PER_CELL = 10
SEED = 18

_CITIES = [
    "Porto",
    "Lyon",
    "Kraków",
    "Osaka",
    "Tucson",
    "Ghent",
    "Valdivia",
    "Bergen",
    "Leeds",
    "Mombasa",
    "Hobart",
    "Tartu",
]
_NAMES = ["Ana", "Tomas", "Priya", "Kofi", "Mei", "Lars", "Ines", "Omar", "Zofia", "Diego", "Hana", "Ruben"]
_COMPANIES = ["Tessera", "Brightline", "Kelmar", "Northwind", "Quillfeather", "Orbis", "Halcyon", "Lumen"]
_OCCUPATIONS = ("nurse", "architect", "pharmacist", "carpenter", "translator", "electrician", "librarian")
_FOODS = ("peanuts", "shellfish", "sesame", "kiwi", "soy")
_RELATIONS = ("sister", "brother", "cousin", "aunt", "uncle", "daughter", "son", "neighbour", "best friend")
_PAIRS = (
    ("trains", "planes", "trains let me work on the way"),
    ("tea", "coffee", "coffee keeps me awake"),
    ("window seats", "aisle seats", "I like watching the clouds"),
    ("paper books", "e-readers", "screens tire my eyes"),
    ("mornings", "evenings", "I think more clearly early"),
    ("hiking", "running", "my knees hurt when I run"),
)
_REASON_WORD = {
    "trains": "work",
    "tea": "awake",
    "window seats": "clouds",
    "paper books": "screens",
    "mornings": "clearly",
    "hiking": "knees",
}
_ACTIVITIES = (
    ("learn", "Portuguese"),
    ("run", "a marathon"),
    ("visit", "Iceland"),
    ("build", "a treehouse"),
    ("take", "a pottery course"),
    ("start", "a podcast"),
)
_WHEN_PAST = ("yesterday", "last week", "last Saturday", "in March", "two days ago")
_WHEN_NEXT = ("next spring", "next month", "in the summer", "next year")
_PLACES = (
    "the Louvre",
    "a jazz festival",
    "the botanical garden",
    "a climbing gym",
    "the coast",
    "a book fair",
)
_PLANTS = ("Tomatoes", "Basil plants", "Lemon trees", "Peppers", "Strawberries")
_NUMBER_WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
_ANIMALS = ("Owls", "Bats", "Foxes", "Lynxes", "Hedgehogs")
_METALS = ("Copper", "Silver", "Aluminium", "Brass")
_FILES = ("notes.md", "journal.txt", "diary.md", "about-me.md", "plans.txt")
_TOOLS = ("crm", "calendar", "profile", "bookings")


@dataclass(frozen=True)
class Statement:
    """One generated statement: who said it, what it says, and what a memory of it must hold."""

    role: str
    kind: str
    content: str
    values: tuple[str, ...]
    about: str  # "user", "author" or "world"
    name: str | None = None  # the tool's or the document's name
    author: str | None = None  # the document's byline, when it has one


def _user_says(kind: str, r: random.Random) -> tuple[str, tuple[str, ...], str]:
    """(first-person wording, values, about) for the user and a document's author."""
    city, name, rel = r.choice(_CITIES), r.choice(_NAMES), r.choice(_RELATIONS)
    if kind == "attribute":
        return r.choice(
            [
                (f"I live in {city}.", (city,)),
                (f"I work at {(c := r.choice(_COMPANIES))}.", (c,)),
                (f"I'm {_a(o := r.choice(_OCCUPATIONS))} {o}.", (o,)),
                (f"I'm allergic to {(f := r.choice(_FOODS))}.", (f,)),
                (f"I'm {(age := str(r.randint(19, 88)))} years old.", (age,)),
            ]
        ) + ("user",)
    if kind == "preference":
        a, b, why = r.choice(_PAIRS)
        return f"I prefer {a} to {b} because {why}.", (a, _REASON_WORD[a]), "user"
    if kind == "plan":
        verb, what = r.choice(_ACTIVITIES)
        return (
            r.choice(
                [
                    f"I'm planning to {verb} {what} {r.choice(_WHEN_NEXT)}.",
                    f"I want to {verb} {what} {r.choice(_WHEN_NEXT)}.",
                    f"I will {verb} {what} {r.choice(_WHEN_NEXT)}.",
                ]
            ),
            (what,),
            "user",
        )
    if kind == "relationship":
        return r.choice(
            [
                (f"My {rel} {name} lives in {city}.", (rel, name)),
                (f"{name} is my {rel}.", (rel, name)),
                (f"My {rel}'s name is {name}.", (rel, name)),
            ]
        ) + ("user",)
    if kind == "event":
        place = r.choice(_PLACES)
        return (
            r.choice(
                [
                    f"I went to {place} {r.choice(_WHEN_PAST)}.",
                    f"I visited {place} with {name} {r.choice(_WHEN_PAST)}.",
                ]
            ),
            (place.split()[-1],),
            "user",
        )
    return _world(r)


def _a(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _world(r: random.Random) -> tuple[str, tuple[str, ...], str]:
    city, n = r.choice(_CITIES), r.randint(3, 9)
    return r.choice(
        [
            (
                f"{(p := r.choice(_PLANTS))} need {_NUMBER_WORDS[n]} hours of sun.",
                (p.split()[0], _NUMBER_WORDS[n]),
            ),
            (f"The museum in {city} opens at {n} on weekdays.", ("museum", city)),
            (f"The train from {city} takes {n} hours.", (city, f"{n} hours")),
            (f"{city} gets most of its rain in winter.", (city, "rain")),
            (f"{(a := r.choice(_ANIMALS))} hunt at night.", (a, "night")),
            (f"The old bridge in {city} closes during storms.", ("bridge", city)),
            (f"{(m := r.choice(_METALS))} conducts heat well.", (m, "heat")),
        ]
    ) + ("world",)


_SECOND = [
    (r"\bI'm\b", "you're"),
    (r"\bI am\b", "you are"),
    (r"\bI\b", "you"),
    (r"\b[Mm]y\b", "your"),
    (r"\bme\b", "you"),
]
_THIRD = [
    (r"^I'm\b", "The user is"),
    (r"^I am\b", "The user is"),
    (r"^I (\w+)", lambda m: f"The user {third_singular(m[1])}"),
    (r"^My\b", "The user's"),
    (r"\bmy\b", "the user's"),
    (r"\bI\b", "they"),
    (r"\bme\b", "them"),
]


def _reworded(text: str, rules: list[tuple[str, Any]]) -> str:
    for pattern, repl in rules:
        text = re.sub(pattern, repl, text)
    return text[:1].upper() + text[1:]


def generate(
    per_cell: int = PER_CELL, seed: int = SEED, roles: Sequence[str] = ROLES, kinds: Sequence[str] = KINDS
) -> list[Statement]:
    """``per_cell`` statements for each (role, kind), from templates with random names and values."""
    r = random.Random(seed)
    out: list[Statement] = []
    for role in roles:
        for kind in kinds:
            for _ in range(per_cell):
                text, values, about = _user_says(kind, r)
                if role == "user" or about == "world":
                    out.append(
                        Statement(
                            role,
                            kind,
                            text,
                            values,
                            about,
                            name=r.choice(_TOOLS)
                            if role == "tool"
                            else r.choice(_FILES)
                            if role == "document"
                            else None,
                        )
                    )
                elif role == "assistant":
                    worded = _reworded(text, _SECOND) if r.random() < 0.5 else _reworded(text, _THIRD)
                    out.append(Statement(role, kind, worded, values, "user"))
                elif role == "tool":
                    worded = _reworded(text, _THIRD)
                    if kind == "attribute" and r.random() < 0.3:  # a labelled line, as tools write them
                        label, value = r.choice(
                            [("Home", r.choice(_CITIES)), ("Employer", r.choice(_COMPANIES))]
                        )
                        worded, values = f"{label}: {value}", (value,)
                    out.append(Statement(role, kind, worded, values, "user", name=r.choice(_TOOLS)))
                else:  # a document's first person is its author's, named in a byline or not
                    author = (
                        f"{r.choice(_NAMES)} {r.choice(['Lopez', 'Berg', 'Okafor', 'Tanaka'])}"
                        if r.random() < 0.5
                        else None
                    )
                    out.append(
                        Statement(role, kind, text, values, "author", name=r.choice(_FILES), author=author)
                    )
    return out


# --- scoring ----------------------------------------------------------------------------------

_ATTRIBUTION = re.compile(r"^According to [^:]+:\s*")
_USER = re.compile(r"\bUser\b")
_OTHERS = re.compile(r"\b(?:Assistant|User|the document's author)\b", re.IGNORECASE)


@dataclass
class Derived:
    """A memory derived from a statement: its text and its key's subject."""

    text: str
    subject: str | None = None


def holds(statement: Statement, memory: Derived) -> bool:
    text = memory.text.casefold()
    return all(v.casefold() in text for v in statement.values)


def wrong_subject(statement: Statement, memory: Derived) -> bool:
    """Whether ``memory`` says the statement of someone other than whom it was about."""
    body = _ATTRIBUTION.sub("", memory.text)
    if (
        statement.name
        and re.search(re.escape(statement.name.split(".")[0]), body, re.IGNORECASE)
        and statement.name.split(".")[0].casefold() not in statement.content.casefold()
    ):
        return True  # the file or the tool as the one who lives, prefers, plans …
    if statement.about == "user":
        return (
            _USER.search(body) is None
            or memory.subject not in (None, "user")
            or re.search(r"\b(?:Assistant|document's author)\b", body, re.IGNORECASE) is not None
        )
    if statement.about == "author":
        author = statement.author or "the document's author"
        return (
            author.casefold() not in body.casefold()
            or _USER.search(body) is not None
            or memory.subject == "user"
        )
    return memory.subject == "user" or _OTHERS.search(body) is not None  # the world is nobody's


@dataclass
class Tally:
    cases: int = 0
    covered: int = 0
    wrong: int = 0
    misses: list[str] = field(default_factory=list)

    def metrics(self) -> dict[str, Any]:
        return {
            "n": self.cases,
            "coverage": round(self.covered / self.cases, 3) if self.cases else 0.0,
            "wrong_subject": round(self.wrong / self.covered, 3) if self.covered else 0.0,
        }


def score(statements: Sequence[Statement], derive: Callable[[Statement], list[Derived]]) -> dict[str, Any]:
    """Coverage and wrong-subject rate per kind, per role and overall, with a few examples of each failure."""
    tallies: dict[str, Tally] = {}
    for st in statements:
        memories = derive(st)
        holding = [m for m in memories if holds(st, m)]
        wrong = any(wrong_subject(st, m) for m in holding)
        for key in ("all", f"kind:{st.kind}", f"role:{st.role}"):
            t = tallies.setdefault(key, Tally())
            t.cases += 1
            t.covered += bool(holding)
            t.wrong += bool(holding) and wrong
            if (not holding or wrong) and key == "all" and len(t.misses) < 12:
                said = " | ".join(m.text for m in memories) or "nothing"
                t.misses.append(f"{st.role} {st.kind}: {st.content!r} -> {said}")
    out: dict[str, Any] = {key: t.metrics() for key, t in sorted(tallies.items())}
    out["failures"] = tallies["all"].misses if "all" in tallies else []
    out["met"] = (
        out.get("all", {}).get("coverage", 0.0) >= COVERAGE_TARGET
        and out.get("all", {}).get("wrong_subject", 1.0) <= WRONG_SUBJECT_TARGET
    )
    return out


def derive_with(mem: Any) -> Callable[[Statement], list[Derived]]:
    """Adds each statement under a user of its own through the SDK; returns what it derived."""
    count = 0

    def derive(st: Statement) -> list[Derived]:
        nonlocal count
        count += 1
        user = f"extraction-{count}"
        if st.role == "document":
            content = f"Author: {st.author}\n\n{st.content}" if st.author else st.content
            result = mem.adding.add_document(content, name=st.name or "notes.md", user_id=user)
        else:
            message = {
                "role": st.role,
                "content": st.content,
                "time": "2024-05-08T10:00:00Z",
                **({"name": st.name} if st.name else {}),
            }
            result = mem.add([message], user_id=user)
        ids = [d["id"] for d in result.added + result.updated + result.unchanged]
        return [Derived(item.text, item.subject) for item in (mem.get(i) for i in ids)]

    return derive


def run_extraction_section(
    ctx: BenchContext, *, per_cell: int = PER_CELL, roles: Sequence[str] = ROLES
) -> Section:
    from ..config import Config
    from ..memory import Memory
    from .runner import BENCH_PASSPHRASE

    config = Config()
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(
        Path(tempfile.mkdtemp(prefix="extraction-", dir=ctx.home)),
        passphrase=BENCH_PASSPHRASE,
        use_keyring=False,
        embedder=ctx.embedder,
        config=config,
    )
    statements = generate(per_cell, roles=roles)
    ctx.progress(f"extraction: {len(statements)} generated statements")
    started = time.perf_counter()
    try:
        result = score(statements, derive_with(mem))
    finally:
        mem.close()
    result["seconds"] = round(time.perf_counter() - started, 1)
    every = result["all"]
    rows = [
        (
            "extraction (rule-based)",
            f"{every['n']} generated statements, {result['seconds']} s: coverage "
            f"{every['coverage']:.3f} (target ≥ {COVERAGE_TARGET}), wrong subject "
            f"{every['wrong_subject']:.3f} (target ≤ {WRONG_SUBJECT_TARGET}), "
            f"{'met' if result['met'] else 'NOT met'}",
        )
    ]
    for prefix in ("kind", "role"):
        cells = [
            f"{key.split(':', 1)[1]} {m['coverage']:.2f}/{m['wrong_subject']:.2f}"
            for key, m in result.items()
            if key.startswith(prefix + ":")
        ]
        rows.append((f"  per {prefix} (coverage/wrong subject)", "   ".join(cells)))
    return Section({"extraction": result}, rows)
