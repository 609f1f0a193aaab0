"""The safety net's invariant, over random histories: statements of one single-valued attribute of the
person, each phrased by a random frame of that attribute from the inventory (core/attributes.py) and
given in random order, leave exactly one current statement, the newest; a rejected or held statement
never leads; multi-valued attributes keep every statement current."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st
from veramem_desktop.core import attributes
from veramem_desktop.core.attributes import Attribute, Frame
from veramem_desktop.core.recall import safety_net
from veramem_desktop.core.recall.hits import Hit

_SYLLABLES = ["zor", "vek", "mal", "tiru", "qen", "obra", "lis", "dun", "pha", "rok"]


@cache
def _frames() -> list[tuple[Attribute, Frame]]:
    """Frames that state a value, whose verb and preposition no other single-valued attribute shares."""
    single = [a for a in attributes.ATTRIBUTES if not a.multi]
    uses: dict[tuple[str, str | None], int] = {}
    for attr in single:
        for f in attr.frames:
            uses[(f.verb, f.prep)] = uses.get((f.verb, f.prep), 0) + 1
    return [
        (attr, f)
        for attr in single
        for f in attr.frames
        if not (f.weak or f.ends or f.verb.startswith("be") or f.prep is None) and uses[(f.verb, f.prep)] == 1
    ]


def _past(verb: str) -> str:
    from lemminflect import getInflection

    head, *rest = verb.split()
    return " ".join([getInflection(head, tag="VBD")[0], *rest])


def _sentence(frame: Frame, value: str, opener: str) -> str:
    """A lasting state said in the present ("We live in …"), a change in the past, subject or none ("Moved
    to …")."""
    obj = f" the {frame.obj}" if frame.obj else ""
    verb = f"{(opener or 'I ')}{frame.verb}" if frame.state else f"{opener}{_past(frame.verb)}"
    return f"{verb}{obj} {frame.prep} {value}."


names = st.lists(
    st.tuples(st.sampled_from(_SYLLABLES), st.sampled_from(_SYLLABLES)).map(lambda p: (p[0] + p[1]).title()),
    min_size=2,
    max_size=5,
    unique=True,
)


def _hit(i: int, text: str, day: int, state: str = "current") -> Hit:
    hit = Hit(f"mem_{i}", "fact", text, 1.0 - i / 100, "authorized", "candidate", "active")
    hit.time, hit.user_id, hit.source, hit.state = (
        f"2024-{day // 28 + 1:02d}-{day % 28 + 1:02d}",
        "u",
        "user",
        state,
    )
    return hit


@settings(max_examples=150, deadline=None)
@given(st.data(), names)
def test_random_statements_of_one_attribute_leave_one_current_statement_the_newest(
    data: st.DataObject, values: list[str]
) -> None:
    attr = data.draw(st.sampled_from(sorted({a.name for a, _ in _frames()})))
    frames = [f for a, f in _frames() if a.name == attr]
    days = data.draw(st.lists(st.integers(0, 300), min_size=len(values), max_size=len(values), unique=True))
    hits = [
        _hit(
            i,
            _sentence(
                data.draw(st.sampled_from(frames)), value, data.draw(st.sampled_from(["I ", "We ", ""]))
            ),
            day,
        )
        for i, (value, day) in enumerate(zip(values, days, strict=True))
    ]
    order = data.draw(st.permutations(hits))
    safety_net.apply(order, {}, {}, lambda _a, _b: None)
    current = [h for h in hits if h.state == "current"]
    newest = max(hits, key=lambda h: h.time or "")
    assert current == [newest], [(h.text, h.time, h.state) for h in hits]
    assert all(h.superseded_by == newest.id for h in hits if h is not newest)


@settings(max_examples=50, deadline=None)
@given(names, st.sampled_from(["rejected", "held"]))
def test_a_rejected_or_held_newest_statement_never_leads(values: list[str], state: str) -> None:
    hits = [_hit(i, f"I moved to {v}.", i * 10) for i, v in enumerate(values)]
    hits[-1].state = state
    safety_net.apply(hits, {}, {}, lambda _a, _b: None)
    assert [h.id for h in hits if h.state == "current"] == [hits[-2].id]
    assert hits[-1].state == state


@given(names)
def test_statements_of_a_multi_valued_attribute_all_stay_current(values: list[str]) -> None:
    hits = [_hit(i, f"I started learning {v} this year.", i * 10) for i, v in enumerate(values)]
    hits += [_hit(50 + i, f"We adopted a puppy called {v}.", i * 10 + 5) for i, v in enumerate(values)]
    safety_net.apply(hits, {}, {}, lambda _a, _b: None)
    assert {h.state for h in hits} == {"current"}


def test_reading_a_statement_loads_no_spacy() -> None:
    """The lexicon recall reads with (lemminflect) would import spaCy to hook into it: seconds at a cold
    `veramem search`. In a fresh interpreter, reading a statement leaves spaCy unloaded."""
    code = (
        "from veramem_desktop.core.recall.statements import read\n"
        "assert read('We finally moved into a flat in Ghent!').attributes == ('lives_in',)\n"
    )
    assert not _loaded_after(code, "spacy")


def test_a_frame_followed_by_another_attributes_value_and_a_dates_numbers_are_not_read_as_values() -> None:
    from veramem_desktop.core.recall.statements import read

    assert read("Finally moved the whole monorepo to VS Code at work.") is None or (
        "lives_in" not in read("Finally moved the whole monorepo to VS Code at work.").attributes  # type: ignore[union-attr]
    )
    found = read("I moved to Tallinn on 2024-03-09.")
    assert found is not None and found.values == frozenset({"tallinn"})


def test_a_keyed_statement_opening_on_a_denial_is_history_and_never_leads() -> None:
    """The write path keyed both to the home; the newer one only says the old street is behind
    ("not missing …"): it is history, and the statement naming the new street leads."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Key:
        subject: str | None
        predicate: str | None
        value: str | None

    new = _hit(0, "Got the keys to the new place on Quenby Street!", 10)
    denial = _hit(1, "not missing Pellow and that damp at Larkspur Row one bit lol.", 200)
    rows = {
        new.id: Key("user", "lives_in", "Quenby Street"),
        denial.id: Key("user", "lives_in", "Larkspur Row"),
    }
    safety_net.apply([denial, new], rows, {}, lambda _a, _b: None)
    assert new.state == "current" and denial.state == safety_net.STATE


def test_importing_recall_loads_no_lexicon() -> None:
    """The lexicon is loaded with the first statement read, never at start-up (core/text/lexicon.py): in a
    fresh interpreter, importing recall's readers leaves lemminflect unloaded."""
    code = (
        "import veramem_desktop.core.recall.statements, veramem_desktop.core.recall.asked\n"
        "import veramem_desktop.core.recall.questions, veramem_desktop.models.llm.rules.answer\n"
    )
    assert not _loaded_after(code, "lemminflect")


def _loaded_after(code: str, module: str) -> bool:
    """Whether ``module`` is loaded after running ``code`` in a fresh interpreter."""
    import subprocess
    import sys

    probe = f"{code}import sys\nprint({module!r} in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() in ("True", "False"), out.stderr
    return out.stdout.strip() == "True"
