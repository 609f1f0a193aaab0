"""Search settings are declared once: the settings file's ``[search]`` table is the engine's own
``SearchConfig`` (core/recall/recipes.py), with the keys and defaults the file always had."""

from __future__ import annotations

from pathlib import Path

from support.internals import embedder_of, engine_of
from veramem_desktop.core.recall import SearchConfig

from veramem_desktop.config import Config, dump_config, load_config, resolve_paths, set_setting

#: the [search] table as the code before this change wrote it (every key, non-default values)
OLD_SEARCH_TABLE = """# VeraMem Desktop settings
[search]
k = 12
utility_lambda = 0.3
learned_share = 0.5
link_decay = 0.2
context_weight = 0.4
hyde_weight = 0.6
"""


def test_the_settings_search_table_is_the_engines_search_config_with_the_same_keys_and_defaults() -> None:
    config = Config()
    assert type(config.search) is SearchConfig
    table = dump_config(config).split("[search]\n")[1].split("\n\n")[0]
    assert table.splitlines() == [
        "k = 10",
        "utility_lambda = 0.2",
        "learned_share = 0.35",
        "link_decay = 0.0",
        "context_weight = 0.0",
        "hyde_weight = 0.0",
    ]


def test_a_settings_file_written_by_the_old_code_loads_into_the_engines_config(isolated_home: Path) -> None:
    paths = resolve_paths(isolated_home)
    paths.ensure()
    paths.config_file.write_text(OLD_SEARCH_TABLE, "utf-8")
    search = load_config(paths).search
    assert (search.k, search.utility_lambda, search.learned_share, search.link_decay) == (12, 0.3, 0.5, 0.2)
    assert search.weights["memory_ctx"] == 0.4 and search.weights["hyde"] == 0.6
    assert search.weights["dense"] == SearchConfig().weights["dense"]  # the rest keeps the engine's defaults


def test_setting_a_channel_weight_changes_only_that_configs_weights() -> None:
    first, second = Config(), Config()
    set_setting(first, "search.hyde_weight", "0.5")
    assert first.search.weights["hyde"] == 0.5
    assert second.search.weights["hyde"] == 0.0 and SearchConfig().hyde_weight == 0.0
    set_setting(first, "search.hyde_weight", None)
    assert first.search.hyde_weight == 0.0


def test_the_facade_searches_with_the_configured_settings(mem: object, isolated_home: Path) -> None:
    from veramem_desktop.memory import Memory

    config = Config()
    config.search.k = 7
    config.search.context_weight = 0.25
    other = Memory(isolated_home, config=config, embedder=embedder_of(mem))  # type: ignore[attr-defined]
    try:
        engine_config = engine_of(other).config
        assert engine_config.k == 7 and engine_config.weights["memory_ctx"] == 0.25
        engine_config.k = 3  # a recipe set on the engine (the bench does) leaves the settings alone
        assert config.search.k == 7
    finally:
        other.close()
