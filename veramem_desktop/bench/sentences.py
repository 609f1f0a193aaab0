"""Real English sentences for the latency bench, from a small template grammar of facts.

Deterministic for a given seed, so two runs store and ask the same things.
"""

from __future__ import annotations

import random

PEOPLE = (
    "Ana",
    "Rui",
    "Maya",
    "Tom",
    "Priya",
    "Kenji",
    "Lena",
    "Omar",
    "Sofia",
    "Jonas",
    "Aisha",
    "Marco",
    "Elif",
    "Noah",
    "Chloe",
    "Diego",
    "Hana",
    "Felix",
    "Zara",
    "Ivan",
    "my sister",
    "my manager",
    "my landlord",
    "the dentist",
    "our neighbour",
    "my brother",
    "the accountant",
    "my daughter",
)
ACTIONS = (
    ("booked", "a table at", "book"),
    ("moved", "the meeting to", "move"),
    ("left", "the spare keys at", "leave"),
    ("recommended", "the bakery near", "recommend"),
    ("found", "a cheaper flat in", "find"),
    ("lost", "the umbrella at", "lose"),
    ("started", "pottery classes in", "start"),
    ("bought", "a second-hand bike in", "buy"),
    ("painted", "the kitchen of the house in", "paint"),
    ("planned", "a weekend trip to", "plan"),
    ("signed", "the lease for the studio in", "sign"),
    ("cancelled", "the gym membership in", "cancel"),
    ("adopted", "a rescue dog from the shelter in", "adopt"),
    ("hosted", "a birthday dinner in", "host"),
    ("fixed", "the leaking tap at the cottage in", "fix"),
    ("sold", "the old piano to a school in", "sell"),
    ("ordered", "new glasses from the optician in", "order"),
    ("visited", "the science museum in", "visit"),
    ("renewed", "the passport at the office in", "renew"),
    ("joined", "a climbing club in", "join"),
)
PLACES = (
    "Lisbon",
    "Porto",
    "Berlin",
    "Kyoto",
    "Oslo",
    "Madrid",
    "Nairobi",
    "Toronto",
    "Dublin",
    "Seville",
    "Prague",
    "Bristol",
    "Lyon",
    "Utrecht",
    "Valencia",
    "Bergen",
    "Graz",
    "Cork",
    "Malmo",
    "Turin",
)
WHEN = (
    "on Monday",
    "last Friday",
    "in early March",
    "two weeks ago",
    "at the end of June",
    "on 8 May 2023",
    "after the holidays",
    "before the wedding",
    "in the spring",
    "yesterday",
    "last autumn",
    "on the 14th",
    "in 2021",
    "over the long weekend",
    "this morning",
)
REASONS = (
    "because the old one broke",
    "to save money",
    "for the anniversary",
    "after a long search",
    "on a friend's advice",
    "since the prices went up",
    "to be closer to work",
    "just for fun",
)


def fact_sentences(count: int, seed: int = 7) -> list[str]:
    """``count`` distinct fact sentences, e.g. "Maya booked a table at Lisbon on Monday to save money."."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        who, (verb, obj, _), place = rng.choice(PEOPLE), rng.choice(ACTIONS), rng.choice(PLACES)
        text = f"{who[0].upper() + who[1:]} {verb} {obj} {place} {rng.choice(WHEN)} {rng.choice(REASONS)}."
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def questions(count: int, seed: int = 11) -> list[str]:
    """``count`` questions in the style an agent asks, e.g. "Where did Maya book a table?"."""
    rng = random.Random(seed)
    forms = (
        "Where did {who} {base} {obj_short}?",
        "When did {who} {base} {obj} {place}?",
        "What did {who} do in {place}?",
        "Why did {who} {base} {obj} {place}?",
        "Who {verb} {obj} {place}?",
        "Remind me what happened with {obj_short} in {place}",
    )
    out = []
    for _ in range(count):
        who, (verb, obj, base), place = rng.choice(PEOPLE), rng.choice(ACTIONS), rng.choice(PLACES)
        obj_short = " ".join(obj.split()[:3])
        out.append(
            rng.choice(forms).format(who=who, base=base, verb=verb, obj=obj, obj_short=obj_short, place=place)
        )
    return out


def conversation(count: int, seed: int = 5) -> list[tuple[str, str]]:
    """``count`` chat messages (role, text) alternating user and assistant."""
    facts = fact_sentences(count, seed)
    replies = ("Noted, I will remember that.", "Thanks for telling me.", "Got it.", "Understood, saved.")
    return [
        ("user", f"By the way: {f}") if i % 2 == 0 else ("assistant", replies[i % 4])
        for i, f in enumerate(facts)
    ]
