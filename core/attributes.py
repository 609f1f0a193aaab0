"""The inventory of personal attributes: what a statement about a person can be keyed to.

A key is (subject, predicate, value): whose attribute, which attribute, what it is now. The
predicate is always one of the canonical names below (or a member of one of the two families,
``relation:<role>`` and ``preference:<topic>``), whoever reads the statement: the rule-based
extractor keys through the frames, a model is asked for a name from the same list, and recall
groups hits that state the same attribute by the same names.

Each attribute is data, never a sentence pattern:

- ``name``: the canonical predicate (``lives_in``, ``works_at``, ``relation:partner`` …);
- ``multi``: whether values sit side by side (pets, clubs, languages learnt) or a new one
  replaces the old (home, employer, partner);
- ``description``: one sentence, embedded once by the caller for the similarity fallback
  (:func:`nearest`), when no frame fits;
- ``nouns``: heads that name the attribute itself ("my *employer* is Acme", "the new *boss*
  is Priya", "Acme is my *company*");
- ``frames``: verbs (lemmas, with their particle and the preposition that introduces the
  value) that state or change it ("move *to*", "start *at*", "join", "hand in *notice*");
  a frame that ``ends`` the value says the old one no longer holds ("quit", "break up with");
- ``values``: words that give the attribute away by the value alone ("vegan" is a diet,
  "Italian" a language, "nurse" an occupation);
- ``entities``: the entity labels a value of it usually carries (``GPE`` for a home,
  ``ORG`` for an employer), which settle a verb shared by several attributes.

The attributes themselves are data in core/attribute_table.py and core/attribute_table_life.py,
their shape in core/attribute_kinds.py; this module joins them and answers questions about them.
These modules are the bottom of ``core``: they import nothing but the standard library and numpy,
and never load a model (vectors are passed in).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.attribute_kinds import STATE_VERBS, SWITCH_VERBS, Attribute, Frame, frames_of
from veramem_desktop.core.attribute_table import HOME_WORK_PEOPLE, PETS
from veramem_desktop.core.attribute_table_life import LIFE

__all__ = ["ATTRIBUTES", "STATE_VERBS", "SWITCH_VERBS", "Attribute", "Frame"]

#: The inventory. Order is fixed: callers embed :func:`descriptions` in this order for :func:`nearest`.
ATTRIBUTES: tuple[Attribute, ...] = HOME_WORK_PEOPLE + LIFE


#: the family of relations ("relation:sister"): one person holds several of most of them; a relative
#: who dies is no longer one
_RELATION = Attribute(
    "relation",
    True,
    "A relative, friend or acquaintance of the person, named by how they are related.",
    frames=frames_of("pass_away; die", ends=True),
    entities=("PERSON",),
)
#: words for the relations of the family, each with the role it is keyed under ("relation:<role>")
_RELATION_WORDS = """
    sister: sister, sis; brother: brother, bro; sibling: sibling; son: son; daughter: daughter;
    child: child, kid, baby; cousin: cousin; aunt: aunt, auntie; uncle: uncle;
    grandmother: grandmother, grandma, granny, gran, nan, nana; grandfather: grandfather, grandpa, granddad, grandad;
    niece: niece; nephew: nephew; friend: friend, buddy, pal; best_friend: best friend, bff;
    roommate: roommate, flatmate, housemate; colleague: colleague, coworker, co-worker, teammate;
    neighbour: neighbour, neighbor; mentor: mentor; stepmother: stepmother, stepmom, stepmum;
    stepfather: stepfather, stepdad; mother_in_law: mother-in-law; father_in_law: father-in-law;
    ex: ex, ex-partner, ex-wife, ex-husband, ex-boyfriend, ex-girlfriend
"""


@cache
def _relation_index() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in _RELATION_WORDS.split(";"):
        role, _, words = group.partition(":")
        for word in words.split(","):
            out[" ".join(word.split())] = "relation:" + role.strip()
    for attr in ATTRIBUTES:
        if attr.name.startswith("relation:"):
            for noun in attr.nouns:
                out.setdefault(noun, attr.name)
    return out


def relation(noun: str) -> str | None:
    """The predicate of the relation a noun names ("mum" -> "relation:mother", "wife" ->
    "relation:partner", "sis" -> "relation:sister"), None for a noun that names no relation."""
    return _relation_index().get(" ".join(noun.lower().split()))


def relation_of_any_number(noun: str) -> str | None:
    """:func:`relation`, in the plural too ("sisters" -> "relation:sister"), and the relations said of a
    pair or a group ("parents", "in-laws"): recall reads "my parents bought …" as someone else's words.
    (The write path keys with :func:`relation` alone.)"""
    word = " ".join(noun.lower().split())
    plural = relation(word[:-1]) if word.endswith("s") and len(word) > 3 else None
    return relation(word) or plural or _GROUPS.get(word)


#: relations said of a pair or a group, by the role recall reads them under
_GROUPS = {
    "parents": "relation:parents",
    "folks": "relation:parents",
    "grandparents": "relation:grandparents",
    "in-laws": "relation:in_laws",
    "inlaws": "relation:in_laws",
}


def is_pet(noun: str) -> bool:
    """Whether a noun names a kind of pet ("dog", "kitten")."""
    return " ".join(noun.lower().split()) in _PET_KINDS


_PET_KINDS = PETS
#: how a named thing stops whichever attribute it was a value of: a business or a venue closing ("the
#: gym shut down", "Harcourt closed down"), a person leaving a role ("Janet has moved on", "Sophie retired"); an
#: attribute's own endings are its frames that ``end``
ENDINGS: tuple[Frame, ...] = frames_of("close_down; shut_down; go_bust; go_under; move_on; retire", ends=True)
#: how the person drops a thing whatever it was, said of the thing as the verb's object ("ditched
#: Ironyard", "switched from Vodafone", "swapped violin for cello"), never of who did it
DROPS: tuple[Frame, ...] = frames_of("ditch; dump; switch from; swap; cancel; give_up", ends=True)


@cache
def endings() -> tuple[tuple[Attribute | None, Frame], ...]:
    """Every frame of the inventory that says a value stopped, multi-valued attributes and the relations
    included ("Biscuit passed away": a pet; "gave up on Italian": a language), each with its attribute, and
    :data:`ENDINGS` and :data:`DROPS` (no attribute)."""
    found: list[tuple[Attribute | None, Frame]] = [
        (attr, frame) for attr in (*ATTRIBUTES, _RELATION) for frame in attr.frames if frame.ends
    ]
    return (*found, *((None, frame) for frame in ENDINGS + DROPS))


#: the family of preferences ("preference:coffee"): one favourite per topic
_PREFERENCE = Attribute(
    "preference",
    False,
    "Something the person prefers or names as their favourite.",
)


def _indexed(words: Callable[[Attribute], Iterable[str]]) -> dict[str, Attribute]:
    """Each attribute by every one of its ``words``; a word two attributes share names the first listed."""
    out: dict[str, Attribute] = {}
    for attr in ATTRIBUTES:
        for word in words(attr):
            out.setdefault(word, attr)
    return out


@cache
def _index() -> dict[str, Attribute]:
    return _indexed(lambda attr: (attr.name, *attr.aliases))


@cache
def _noun_index() -> dict[str, Attribute]:
    return _indexed(lambda attr: (noun.lower() for noun in attr.nouns))


@cache
def _value_index() -> dict[str, Attribute]:
    return _indexed(lambda attr: (value.lower() for value in attr.values))


def by_name(predicate: str) -> Attribute | None:
    """The attribute a predicate names: its canonical name or an alias ("preference:editor" is
    ``editor``); ``relation:<role>`` and ``preference:<topic>`` not listed fall in their family.
    None for a predicate the inventory does not know."""
    attr = _index().get(predicate)
    if attr is not None:
        return attr
    if predicate.startswith("relation:"):
        return _RELATION
    if predicate.startswith("preference:"):
        return _PREFERENCE
    return None


def canonical(predicate: str) -> str:
    """The canonical name of a predicate ("relation:wife" -> "relation:partner"); a family member or an
    unknown predicate is returned as it is. A key named by a noun of an attribute is not that attribute:
    the write path keys what describes a thing under its noun ("my broadband is dreadful": "broadband"),
    never as its value."""
    attr = _index().get(predicate)
    return attr.name if attr is not None else predicate


def is_multi_valued(predicate: str) -> bool:
    """Whether a second value of ``predicate`` sits beside the first instead of replacing it. An
    unknown predicate is single-valued (a new value replaces the old)."""
    attr = by_name(predicate)
    return attr is not None and attr.multi


def description(predicate: str) -> str | None:
    """The one-sentence description of the attribute ``predicate`` names, None when unknown."""
    attr = by_name(predicate)
    return attr.description if attr is not None else None


def descriptions() -> tuple[str, ...]:
    """Every attribute's description, in :data:`ATTRIBUTES` order: embed these once (one row each)
    and pass the matrix to :func:`nearest`."""
    return tuple(a.description for a in ATTRIBUTES)


def for_noun(noun: str) -> Attribute | None:
    """The attribute a head noun names ("employer", "boss", "climbing gym"), None when none does."""
    return _noun_index().get(" ".join(noun.lower().split()))


def for_value(value: str) -> Attribute | None:
    """The attribute a value gives away by itself ("vegan", "Italian", "nurse"), or by its first word, a
    make ("iPhone 15", "Kia Niro EV"); None otherwise."""
    words = value.lower().split()
    index = _value_index()
    return index.get(" ".join(words)) or (index.get(words[0]) if len(words) > 1 else None)


def values_beside(predicate: str, words: Sequence[str], now: str) -> list[str]:
    """The values of the inventory's own for a single-valued attribute said in ``words`` (lower case, in
    order) other than ``now`` (its value, as said) and the two words just before it: a make said with its
    model ("Honda Civic") is one value. Longest first, each said once ("virgin media", not "virgin" too)."""
    attr = by_name(predicate)
    if attr is None or attr.multi:
        return []
    own = {v.lower() for v in attr.values}
    said_now = now.lower().split()
    near = {
        i
        for at in range(len(words))
        if list(words[at : at + len(said_now)]) == said_now
        for i in range(at - 2, at + len(said_now))
    }
    out: list[str] = []
    for n in (3, 2, 1):
        for at in range(len(words) - n + 1):
            said = list(words[at : at + n])
            if " ".join(said) not in own or near & set(range(at, at + n)) or set(said_now) & set(said):
                continue
            if not any(set(said) <= set(o.split()) for o in out):
                out.append(" ".join(said))
    return out


def frames_for(verb: str) -> tuple[tuple[Attribute, Frame], ...]:
    """Every (attribute, frame) whose verb is ``verb`` (a lemma, with its particle: "hand in")."""
    return _verb_index().get(" ".join(verb.lower().split()), ())


@cache
def _verb_index() -> dict[str, tuple[tuple[Attribute, Frame], ...]]:
    out: dict[str, list[tuple[Attribute, Frame]]] = {}
    for attr in ATTRIBUTES:
        for frame in attr.frames:
            out.setdefault(frame.verb, []).append((attr, frame))
    return {verb: tuple(pairs) for verb, pairs in out.items()}


def verbs() -> frozenset[str]:
    """Every frame verb of the inventory (lemmas, particles included)."""
    return frozenset(_verb_index())


FloatArray = npt.NDArray[np.floating]


def nearest(
    vector: Sequence[float] | FloatArray,
    description_vectors: FloatArray,
    *,
    threshold: float = -1.0,
    margin: float = 0.0,
    among: Iterable[str] | None = None,
) -> tuple[Attribute, float] | None:
    """The attribute whose description vector is nearest (cosine) to ``vector``, with the cosine.

    ``description_vectors`` holds one row per attribute, in :data:`ATTRIBUTES` order (the caller
    embeds :func:`descriptions`). ``among`` limits the choice to those predicate names. None when
    the best cosine is below ``threshold``, ahead of the second best by less than ``margin``, or there
    is nothing to choose from.
    """
    matrix = np.asarray(description_vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(ATTRIBUTES):
        raise ValueError(f"description_vectors must have one row per attribute ({len(ATTRIBUTES)})")
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(v) or 1.0)
    scores = (matrix @ v) / np.where(norms == 0, 1.0, norms)
    if among is not None:
        allowed = {canonical(n) for n in among}
        mask = np.array([a.name in allowed for a in ATTRIBUTES])
        if not mask.any():
            return None
        scores = np.where(mask, scores, -np.inf)
    order = np.argsort(-scores)
    best = int(order[0])
    score = float(scores[best])
    runner_up = float(scores[order[1]]) if len(order) > 1 else -np.inf
    if score < threshold or score - runner_up < margin:
        return None
    return ATTRIBUTES[best], score
