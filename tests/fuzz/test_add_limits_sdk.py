"""The input limits (core/storage/limits.py) as the SDK meets them, and an add that stores its episodes
but cannot derive from them says so instead of failing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.llm import Capabilities
from veramem_desktop.core.storage import limits
from veramem_desktop.core.storage.episodes import EpisodeInput

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


@pytest.mark.parametrize(
    "message,said",
    [
        ({"content": "hi there", "time": "0001-01-01"}, "outside the supported range"),
        ({"content": "hi there", "time": datetime(1, 1, 1)}, "outside the supported range"),
        ({"content": "hi there", "time": "9999-12-31T23:59:59-10:00"}, "could not read the time"),
        ({"content": "hi there", "time": 1715176560}, "time must be ISO 8601 text"),
        ({"content": 42}, "content must be text, not a number"),
        ({"content": ["a"]}, "content must be text, not a list"),
        ({"content": "hi there", "role": {"x": 1}}, "role an object is not one of"),
        ({"content": "hi there", "name": "a\u2028b"}, "one line"),
        ({"content": "hi there", "name": "x" * (limits.MAX_NAME_CHARS + 1)}, "the limit is"),
        ({"content": "hi there", "metadata": {"a": float("nan")}}, "not finite"),
        ({"content": "hi there", "metadata": {"when": datetime.now(UTC)}}, "not a JSON value"),
        ({"content": "hi there", "metadata": {"n": 10**5000}}, "cannot be written as JSON"),
        ({"content": "hi there", "metadata": {"k\udfff": 1}}, "unpaired surrogate"),
        ({"content": "hi there", "metadata": {"big": "x" * (limits.MAX_METADATA_BYTES + 1)}}, "the limit is"),
    ],
    ids=[
        "year-one-text",
        "year-one-datetime",
        "overflowing-offset",
        "epoch-number",
        "number-content",
        "list-content",
        "object-role",
        "line-separator-name",
        "long-name",
        "nan-metadata",
        "datetime-metadata",
        "huge-int-metadata",
        "surrogate-key",
        "large-metadata",
    ],
)
def test_each_field_outside_its_limit_is_invalid_input_and_nothing_is_stored(
    fuzz_mem: Memory, message: dict[str, Any], said: str
) -> None:
    with pytest.raises(InvalidInputError, match=said):
        fuzz_mem.add([message])
    assert fuzz_mem.episodes() == []


def test_an_episode_input_built_in_python_meets_the_same_limits(fuzz_mem: Memory) -> None:
    with pytest.raises(InvalidInputError, match="name must be text"):
        fuzz_mem.add(EpisodeInput(content="hi there", name=5))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="Messages must be text"):
        fuzz_mem.add(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="user id holds a control character"):
        fuzz_mem.add("hi there", user_id="me\x1b[2K")


def test_metadata_nested_past_the_depth_limit_is_refused(fuzz_mem: Memory) -> None:
    deep: Any = "x"
    for _ in range(limits.MAX_JSON_DEPTH):
        deep = [deep]
    with pytest.raises(InvalidInputError, match="nests deeper"):
        fuzz_mem.add([{"content": "hi there", "metadata": {"d": deep}}])


def test_too_many_messages_in_one_add_is_refused_before_anything_is_stored(fuzz_mem: Memory) -> None:
    with pytest.raises(InvalidInputError, match="the limit is"):
        fuzz_mem.add(["m"] * (limits.MAX_MESSAGES + 1))
    assert fuzz_mem.episodes() == []


def test_json_depth_is_measured_before_parsing_and_ignores_brackets_inside_strings() -> None:
    assert limits.json_depth_exceeds("[" * 100_000 + "]" * 100_000)
    assert not limits.json_depth_exceeds('[{"content": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}]')
    with pytest.raises(InvalidInputError, match="nests deeper"):
        limits.parse_json("[" * 100_000, "the argument")


class _BrokenLLM:
    """A backend that fails inside extraction with an error no surface expects."""

    capabilities = Capabilities("broken", rule_based=True)

    def extract(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")


def test_an_add_that_stores_episodes_but_cannot_derive_says_so_and_keeps_them(isolated_home: Path) -> None:
    config = Config()
    config.organise.linking = False
    mem, _ = Memory.create(
        isolated_home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        embedder=HashEmbedder(),
        config=config,
        llm=_BrokenLLM(),
    )
    try:
        result = mem.add("I live in Lisbon.")
        assert [e.content for e in result.episodes] == ["I live in Lisbon."] and not result.added
        assert any("no memories were derived" in n and "stored and searchable" in n for n in result.notices)
        assert [e.content for e in mem.episodes()] == ["I live in Lisbon."]
        assert mem.verify().ok
    finally:
        mem.close()


def test_stored_times_keep_four_digit_years_so_string_order_is_time_order() -> None:
    from veramem_desktop.core.storage.ids import iso, parse_iso

    early, late = datetime(999, 12, 31, tzinfo=UTC), datetime(2024, 5, 8, 13, 56, tzinfo=UTC)
    assert iso(early) == "0999-12-31T00:00:00.000000Z" and iso(early) < iso(late)
    assert parse_iso(iso(early)) == early and iso(late) == "2024-05-08T13:56:00.000000Z"


def test_episodes_an_add_could_not_derive_from_are_derived_at_the_next_consolidate(
    isolated_home: Path,
) -> None:
    from veramem_desktop.models.llm.rule_based import RuleBasedLLM

    config = Config()
    config.organise.linking = False
    mem, _ = Memory.create(
        isolated_home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        embedder=HashEmbedder(),
        config=config,
        llm=_BrokenLLM(),
    )
    try:
        result = mem.add("I live in Lisbon.")
        assert not result.added and any("next `veramem consolidate`" in n for n in result.notices)
        mem._llm = RuleBasedLLM()  # the model works again
        report = mem.consolidate()
        assert any("derived again from 1 message" in n for n in report.notices), report.notices
        assert any("Lisbon" in m.text for m in mem.memories())
        assert mem.writes.rederive_pending() == {"tried": 0, "derived": 0, "still_pending": 0}
        assert mem.verify().ok
    finally:
        mem.close()
