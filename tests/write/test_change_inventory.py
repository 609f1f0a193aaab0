"""The inventory of personal attributes (core/attributes.py): the data every keying path shares."""

from __future__ import annotations

import numpy as np
import pytest
from veramem_desktop.core import attributes
from veramem_desktop.core.llm import multi_valued


def test_inventory_holds_at_least_forty_attributes_with_unique_names_and_descriptions() -> None:
    names = [a.name for a in attributes.ATTRIBUTES]
    assert len(names) >= 40
    assert len(set(names)) == len(names)
    assert all(a.description.endswith(".") for a in attributes.ATTRIBUTES)
    assert len(attributes.descriptions()) == len(names)


@pytest.mark.parametrize(
    ("predicate", "multi"),
    [
        ("lives_in", False),
        ("works_at", False),
        ("relation:partner", False),
        ("relation:wife", False),
        ("relation:boss", False),
        ("relation:mother", False),
        ("relation:sister", True),
        ("relation:friend", True),
        ("pet", True),
        ("likes", True),
        ("allergic_to", True),
        ("languages_learning", True),
        ("clubs", True),
        ("preference:coffee", False),
        ("some_unknown_thing", False),
    ],
)
def test_multi_valued_follows_the_inventory(predicate: str, multi: bool) -> None:
    assert attributes.is_multi_valued(predicate) is multi
    assert multi_valued(predicate) is multi


def test_aliases_resolve_to_one_canonical_name() -> None:
    assert attributes.canonical("relation:wife") == "relation:partner"
    assert attributes.canonical("preference:editor") == "editor"
    assert attributes.canonical("relation:sister") == "relation:sister"
    assert attributes.by_name("manager") is attributes.by_name("relation:boss")
    # a key named by one of an attribute's nouns is a thing described, not the attribute ("my broadband is
    # dreadful" is keyed "broadband": never the internet provider's value)
    assert attributes.canonical("broadband") == "broadband"
    assert attributes.canonical("mobile_provider") == "mobile_provider"
    assert attributes.canonical("living_room") == "living_room"


def test_frames_nouns_and_values_point_to_their_attribute() -> None:
    assert {a.name for a, f in attributes.frames_for("hand in")} == {"works_at"}
    assert all(f.ends for _, f in attributes.frames_for("hand in"))
    assert "works_at" in {a.name for a, _ in attributes.frames_for("join")}
    assert attributes.for_noun("Boss").name == "relation:boss"  # type: ignore[union-attr]
    assert attributes.for_value("vegan").name == "diet"  # type: ignore[union-attr]
    # well-known names of banks, networks, medicines and fields of study give their attribute away
    for value, name in (("monzo", "bank"), ("giffgaff", "mobile_provider"), ("apixaban", "medication")):
        assert attributes.for_value(value).name == name  # type: ignore[union-attr]
    assert attributes.for_value("criminology").name == "studies"  # type: ignore[union-attr]
    assert attributes.for_noun("weather") is None


def test_nearest_picks_the_row_closest_in_cosine_and_respects_threshold_and_choice() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.normal(size=(len(attributes.ATTRIBUTES), 16)).astype(np.float32)
    target = 5
    got = attributes.nearest(matrix[target] * 3.0, matrix)
    assert got is not None and got[0] is attributes.ATTRIBUTES[target]
    assert got[1] == pytest.approx(1.0, abs=1e-5)
    assert attributes.nearest(-matrix[target], matrix, threshold=0.99) is None
    other = attributes.ATTRIBUTES[0].name
    limited = attributes.nearest(matrix[target], matrix, among=[other])
    assert limited is not None and limited[0].name == other
    with pytest.raises(ValueError):
        attributes.nearest(matrix[0], matrix[:3])


def test_nearest_refuses_a_choice_too_close_to_the_second_best() -> None:
    matrix = np.zeros((len(attributes.ATTRIBUTES), 2), dtype=np.float32)
    matrix[:, 1] = 1.0  # every other attribute: orthogonal to the vector asked about
    matrix[0] = [1.0, 0.0]
    matrix[1] = [0.99, 0.141]  # nearly as close as the first
    assert attributes.nearest([1.0, 0.0], matrix, margin=0.05) is None
    got = attributes.nearest([1.0, 0.0], matrix, margin=0.005)
    assert got is not None and got[0] is attributes.ATTRIBUTES[0]
