"""The shape of an attribute of the inventory (core/attributes.py) and how its frames are written.

An :class:`Attribute` has a canonical predicate, whether it holds several values, a description, the
nouns that name it, the :class:`Frame` s (verbs) that state or end it, the values that give it away and
the entity labels of its values. :func:`make` builds one from the compact text the tables use
(core/attribute_table.py, core/attribute_table_life.py). Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Frame:
    """A verb that states (or ends) an attribute: ``verb`` is its lemma with any particle ("move",
    "hand in", "pass away"), ``prep`` the preposition before the value (None: the value is the
    direct object, or there is none), ``obj`` a fixed object noun the frame needs ("notice" for
    "hand in notice"), ``ends`` whether it says the value stops holding, ``weak`` and ``state``
    as below."""

    verb: str
    prep: str | None = None
    obj: str | None = None
    ends: bool = False
    #: a verb of many uses ("have", "play", "go to"): it states the attribute only when the value
    #: gives it away too (a noun, a value or an entity of the attribute)
    weak: bool = False
    #: a verb of a lasting state ("live in", "work at", "use"), not of a change ("move to", "join"):
    #: said in the past it tells history, never a new current value
    state: bool = False


@dataclass(frozen=True)
class Attribute:
    """One personal attribute of the inventory (see the module docstring for each field)."""

    name: str
    multi: bool
    description: str
    nouns: tuple[str, ...] = ()
    frames: tuple[Frame, ...] = ()
    values: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


def frames_of(text: str, ends: bool = False) -> tuple[Frame, ...]:
    """Frames written one per ';': a verb lemma with its particles joined by '_' ("hand_in",
    "pass_away"), a word after '+' for the frame's fixed object ("hand_in +notice"), and last the
    preposition that introduces the value, when there is one ("move to", "be married to"). A frame
    ending in '?' is weak (the value must give the attribute away too: "play?" needs an instrument
    or a sport). Whether it states a lasting state is read from :data:`STATE_VERBS`."""
    out = []
    for part in text.split(";"):
        weak = part.strip().endswith("?")
        tokens = part.replace("?", " ").split()
        obj = next((t[1:] for t in tokens if t.startswith("+")), None)
        tokens = [t for t in tokens if not t.startswith("+")]
        if not tokens:
            continue
        prep = tokens.pop() if len(tokens) > 1 and tokens[-1] in _PREPOSITIONS else None
        verb = " ".join(tokens).replace("_", " ")
        state = not ends and obj is None and verb in STATE_VERBS and f"{verb} {prep}" not in CHOICES
        out.append(Frame(verb, prep, obj, ends, weak, state))
    return tuple(out)


#: verbs of a lasting state: in the past tense they tell history ("when I still used Vim", "I lived
#: in Berlin for years"); any other frame verb is a change, current from the moment it is said
STATE_VERBS = frozenset(
    {
        "live", "reside", "stay", "be based", "work", "be employed", "use", "have", "own", "drive", "ride",
        "study", "attend", "speak", "be fluent", "play", "like", "love", "enjoy", "adore", "hate",
        "dislike", "detest", "date", "be married", "be engaged", "be with", "be seeing", "see", "bank",
        "support", "root", "cheer", "be allergic", "train", "go", "report", "code", "write", "eat",
        "follow", "be on", "read", "be reading", "do", "be", "volunteer", "commute", "share", "rent",
        "lease", "practise", "practice", "learn", "suffer", "take", "sing", "major",
    }
)  # fmt: skip
#: verbs of a state that say where one lives only when no time bounds them: "we stay in Ruaka" is a home,
#: "I'm staying in Lisbon this week" a visit
BOUNDED_VISITS = frozenset({"stay"})
#: a verb of a state that, with this preposition, says a choice made ("we went with Saga", "stayed with
#: Aviva after all"): said in the past it is the choice, current from then, not history
CHOICES = frozenset({"go with", "stay with"})
#: verbs that say an attribute named as "my X" changed to a new value ("I switched my editor to
#: Helix", "my phone changed to a Pixel")
SWITCH_VERBS = frozenset({"switch", "change", "update", "upgrade", "move", "replace", "swap", "trade"})


_PREPOSITIONS = frozenset(
    ["in", "to", "at", "for", "with", "from", "into", "on", "by", "as", "of", "about", "over", "onto"]
)


def make(
    name: str,
    multi: bool,
    description: str,
    *,
    nouns: str = "",
    frames: str = "",
    ends: str = "",
    values: str = "",
    entities: str = "",
    aliases: str = "",
) -> Attribute:
    """An attribute from the tables' text: comma-separated nouns and values, frames as in
    :func:`_frames`, space-separated entity labels and aliases."""
    return Attribute(
        name=name,
        multi=multi,
        description=description,
        nouns=tuple(n.strip() for n in nouns.split(",") if n.strip()),
        frames=tuple(
            dict.fromkeys(frames_of(frames) + frames_of(ends, ends=True))
        ),  # a frame said twice, once
        values=tuple(v.strip() for v in values.split(",") if v.strip()),
        entities=tuple(entities.split()),
        aliases=tuple(aliases.split()),
    )
