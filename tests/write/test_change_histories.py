"""Any history of one attribute, said in any of the inventory's wordings, leaves one current version:
the newest (issue 29). Hypothesis draws the values, their order and, for each statement, a frame of the
attribute from core/attributes.py (its verb inflected for the frame: a state in the present, a change
in the past), a subject ("I", "we" or none) or the attribute's noun ("my home is …"); for the
attributes a value names by itself (editor, browser, notes app, OS), the values come from the
inventory's own values and the wordings also from chat ("I'm on X now", "three weeks into X now",
"switched to X last week"). Each history is played through the real write path (rule-based
extractor, real embedder, real store) as one user's.
"""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lemminflect import getInflection
from veramem_desktop.core import attributes
from veramem_desktop.core.attributes import Attribute, Frame

from veramem_desktop.memory import Memory

_USERS = itertools.count()
#: values the small English pipeline knows as places and as organisations
_VALUES = {
    "lives_in": ["Lisbon", "Utrecht", "Ghent", "Leiden", "Bergen", "Seville", "Tampere", "Krakow", "Dublin"],
    "works_at": ["Siemens", "Philips", "Deloitte", "Unilever", "Spotify", "Heineken", "Adidas", "Ericsson"],
}


def _said(verb: str, tense: str) -> str:
    """A frame's verb inflected: "move" -> "moved", "be based" -> "am based", "settle" -> "settle"."""
    first, *rest = verb.split()
    if first == "be":
        return " ".join(["am" if tense == "present" else "was", *rest])
    form = getInflection(first, tag="VBD" if tense == "past" else "VBP")
    return " ".join([form[0] if form else first, *rest])


def _frames(attr: Attribute) -> list[Frame]:
    """The frames that state a value of ``attr`` on their own: strong, not ending, with a value."""
    return [f for f in attr.frames if not f.weak and not f.ends and (f.prep or f.obj is None)]


def _sentence(frame: Frame, value: str, subject: str) -> str:
    tense = "present" if frame.state else "past"
    words = [_said(frame.verb, tense)]
    if frame.obj:
        words.append(f"a {frame.obj}")
    if frame.prep:
        words.append(frame.prep)
    words.append(value)
    if subject == "":
        if frame.state:  # a state said without a subject is not how people talk; say it with one
            subject = "I"
        else:
            return " ".join(words)[:1].upper() + " ".join(words)[1:] + "."
    if subject == "We" and words[0] == "am":
        words[0] = "are"
    return f"{subject} {' '.join(words)}."


@st.composite
def histories(draw: st.DrawFn, name: str) -> list[str]:
    attr = attributes.by_name(name)
    assert attr is not None
    values = draw(st.lists(st.sampled_from(_VALUES[name]), min_size=2, max_size=4, unique=True))
    said = []
    for value in values:
        if draw(st.booleans()) and attr.nouns and name == "lives_in":
            noun = draw(st.sampled_from(["home", "city", "new city", "home town"]))
            said.append(f"My {noun} is {value}.")
            continue
        frame = draw(st.sampled_from(_frames(attr)))
        said.append(_sentence(frame, value, draw(st.sampled_from(["I", "We", ""]))))
    return said


def _play(mem: Memory, name: str, said: list[str]) -> list[tuple[str, str | None]]:
    user = f"history-{next(_USERS)}"
    for month, sentence in enumerate(said, 1):
        mem.add(
            [{"role": "user", "content": sentence, "time": f"2025-{month:02d}-10T09:00:00Z"}], user_id=user
        )
    return [
        (m.status, m.value)
        for m in mem.memories(user_id=user, status=None, limit=100)
        if (m.subject, m.predicate) == ("user", name)
    ]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(said=histories("lives_in"))
def test_any_history_of_a_home_leaves_one_current_version_the_newest(rmem: Memory, said: list[str]) -> None:
    versions = _play(rmem, "lives_in", said)
    assert [v for s, v in versions if s == "active"] == [said[-1].rstrip(".").split()[-1]], (said, versions)
    assert len(versions) == len(said), (said, versions)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(said=histories("works_at"))
def test_any_history_of_an_employer_leaves_one_current_version_the_newest(
    rmem: Memory, said: list[str]
) -> None:
    versions = _play(rmem, "works_at", said)
    assert [v for s, v in versions if s == "active"] == [said[-1].rstrip(".").split()[-1]], (said, versions)
    assert len(versions) == len(said), (said, versions)


#: single-valued attributes whose values give them away by name (an editor, a browser, a notes app)
_BY_VALUE = ("editor", "browser", "notes_app", "operating_system")
#: how people say a thing of an attribute's kind is now theirs, with no frame of the attribute's own:
#: ``{noun}`` is the attribute's first noun, ``{value}`` the value (issue 29's chat wordings)
_CHAT = (
    "My {noun} is {value}.",
    "I switched to {value}.",
    "Switched to {value} last week.",
    "I'm on {value} now.",
    "three weeks into {value} now, no regrets",
    "We moved everything over to {value}.",
)


def _names(attr: Attribute) -> list[str]:
    """The attribute's values of one word, as names are written ("helix" -> "Helix")."""
    return [v.capitalize() for v in attr.values if v.isalpha() and len(v) > 4]


@st.composite
def chat_histories(draw: st.DrawFn) -> tuple[str, list[str], list[str]]:
    """(attribute, values in order, what was said): values of the attribute drawn from the inventory,
    each said in a wording drawn from the chat wordings or the attribute's own strong frames."""
    attr = attributes.by_name(draw(st.sampled_from(_BY_VALUE)))
    assert attr is not None
    values = draw(st.lists(st.sampled_from(_names(attr)), min_size=2, max_size=4, unique=True))
    said = []
    for value in values:
        frames = _frames(attr)
        if frames and draw(st.booleans()):
            said.append(_sentence(draw(st.sampled_from(frames)), value, "I"))
        else:
            said.append(draw(st.sampled_from(_CHAT)).format(noun=attr.nouns[0], value=value))
    return attr.name, values, said


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=chat_histories())
def test_any_chat_history_of_a_thing_named_by_its_value_leaves_one_current_version_the_newest(
    rmem: Memory, history: tuple[str, list[str], list[str]]
) -> None:
    name, values, said = history
    versions = _play(rmem, name, said)
    assert [v for s, v in versions if s == "active"] == [values[-1]], (said, versions)
    assert len(versions) == len(said), (said, versions)
