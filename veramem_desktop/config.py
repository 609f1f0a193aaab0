"""Where things live and the TOML settings file.

``VERAMEM_HOME`` puts everything (data, config, cache, logs) under one folder, which
is also how tests isolate themselves; otherwise the platform's user folders are used.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

import platformdirs

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.recall.recipes import SearchConfig

APP = "veramem"


@dataclass(frozen=True)
class Paths:
    data_dir: Path
    config_dir: Path
    cache_dir: Path
    log_dir: Path

    @property
    def store(self) -> Path:
        return self.data_dir / "veramem.db"

    @property
    def keyinfo(self) -> Path:
        return self.data_dir / "veramem.keys.json"

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    def ensure(self) -> None:
        for folder in (self.data_dir, self.config_dir, self.cache_dir, self.log_dir):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)


def resolve_paths(home: str | Path | None = None) -> Paths:
    root = home or os.environ.get("VERAMEM_HOME")
    if root:
        base = Path(root).expanduser().resolve()
        return Paths(base / "data", base / "config", base / "cache", base / "logs")
    return Paths(
        Path(platformdirs.user_data_dir(APP)),
        Path(platformdirs.user_config_dir(APP)),
        Path(platformdirs.user_cache_dir(APP)),
        Path(platformdirs.user_log_dir(APP)),
    )


@dataclass
class LLMSettings:
    #: auto | ollama | openai | anthropic | rule-based
    backend: str = "auto"
    model: str = ""  # Ollama model; empty: llama3.2 if installed, else the first installed
    host: str = ""  # Ollama host; empty means OLLAMA_HOST or http://127.0.0.1:11434
    base_url: str = ""  # OpenAI-compatible endpoint
    timeout_s: float = 60.0
    retries: int = 1
    #: tokens of a session's earlier turns a model sees as context when extracting (0: none)
    context_tokens: int = 1000
    #: what `veramem init` found reachable (recorded, shown by `doctor`)
    detected: str = ""


@dataclass
class EmbedderSettings:
    model_path: str = ""  # empty: the bundled all-MiniLM-L6-v2 int8
    tokenizer_path: str = ""
    sha256: str = ""
    # int8 or float32 matrix products; empty: what the store's vectors were made with
    # (float32 for stores made before int8 compute), int8 for a new store
    compute: str = ""


@dataclass
class IdentitySettings:
    user_id: str = "me"
    agent_id: str = ""
    team_id: str = ""


@dataclass
class MCPSettings:
    allow_forget: bool = True


@dataclass
class OrganiseSettings:
    """Background linking, and the per-source budgets beyond which memories go to cold storage."""

    linking: bool = True
    #: link in a background thread as memories arrive; off, the queue waits for ``consolidate`` (the
    #: same links, made in one pass, in queue order: a benchmark that must repeat byte for byte)
    background: bool = True
    user_tokens: int = 400_000
    user_items: int = 20_000
    agent_tokens: int = 200_000
    agent_items: int = 10_000
    tool_tokens: int = 100_000
    tool_items: int = 5_000
    document_tokens: int = 200_000
    document_items: int = 10_000


@dataclass
class WriteSettings:
    """How the write path reads messages."""

    #: read a name typed in lower case as the person's history spells it (core/write/casing.py); off only
    #: for the bench's ablation
    name_casing: bool = True


@dataclass
class Config:
    llm: LLMSettings = field(default_factory=LLMSettings)
    embedder: EmbedderSettings = field(default_factory=EmbedderSettings)
    identity: IdentitySettings = field(default_factory=IdentitySettings)
    mcp: MCPSettings = field(default_factory=MCPSettings)
    #: the engine's own search config; the file's ``[search]`` table holds its ``SETTINGS`` keys
    search: SearchConfig = field(default_factory=SearchConfig)
    organise: OrganiseSettings = field(default_factory=OrganiseSettings)
    write: WriteSettings = field(default_factory=WriteSettings)
    store_path: str = ""
    sync_folder: str = ""

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


def _keys(obj: Any) -> list[str]:
    """The setting names of a section: those it declares in ``SETTINGS`` (a type used beyond the
    settings file, such as the engine's search config), else all its fields."""
    declared = getattr(type(obj), "SETTINGS", None)
    return list(declared) if declared is not None else [f.name for f in fields(obj)]


def _to_dict(obj: Any) -> Any:
    if is_dataclass(obj):
        return {key: _to_dict(getattr(obj, key)) for key in _keys(obj)}
    return obj


#: what a setting's type alone does not say: the values it may take
_CHOICES: dict[str, tuple[str, ...]] = {
    "llm.backend": ("auto", "ollama", "openai", "anthropic", "rule-based")
}
#: (least, most) for numbers; every other number must be at least 0
_RANGES: dict[str, tuple[float, float]] = {
    "search.k": (1, 1_000),
    "llm.timeout_s": (0.1, 3_600),
    "llm.context_tokens": (0, 32_000),
    "search.learned_share": (0, 1),
    "search.link_decay": (0, 1),
}


def _check(name: str, value: Any, where: str) -> None:
    choices = _CHOICES.get(name)
    if choices is not None and value not in choices:
        raise InvalidInputError(f"{where}: {name} must be one of {', '.join(choices)}, not {value!r}.")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        least, most = _RANGES.get(name, (0, float("inf")))
        if not least <= value <= most:
            bound = f"at least {least:g}" if most == float("inf") else f"between {least:g} and {most:g}"
            raise InvalidInputError(f"{where}: {name} must be {bound}, not {value!r}.")


def _apply(obj: Any, data: dict[str, Any], where: str, prefix: str = "") -> None:
    known = _keys(obj)
    for key, value in data.items():
        if key not in known:
            raise InvalidInputError(
                f"{where}: unknown setting {prefix + key!r}. Known: {', '.join(sorted(known))}."
            )
        current = getattr(obj, key)
        if is_dataclass(current):
            if not isinstance(value, dict):
                raise InvalidInputError(f"{where}: [{key}] must be a table.")
            _apply(current, value, where, f"{prefix}{key}.")
        else:
            expected = type(current)
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, expected):
                raise InvalidInputError(
                    f"{where}: {prefix + key} must be {expected.__name__}, not {type(value).__name__}."
                )
            _check(prefix + key, value, where)
            setattr(obj, key, value)


def setting_names(config: Config) -> list[str]:
    """Every setting as ``section.key`` (or ``key`` at the top level), in the file's order."""
    names: list[str] = []
    for name, value in config.to_dict().items():
        names += [f"{name}.{k}" for k in value] if isinstance(value, dict) else [name]
    return names


def get_setting(config: Config, name: str) -> Any:
    owner, key = _locate(config, name)
    return getattr(owner, key)


def set_setting(config: Config, name: str, raw: str | None) -> tuple[Any, Any]:
    """Set ``name`` from its text form (None: back to its default), checked like the settings
    file is; returns (old, new)."""
    owner, key = _locate(config, name)
    old = getattr(owner, key)
    if raw is None:
        new = getattr(type(owner)(), key)
    else:
        new = _parse(name, raw.strip(), type(old))
    _apply(owner, {key: new}, "veramem config", name[: -len(key)])
    return old, new


def _locate(config: Config, name: str) -> tuple[Any, str]:
    if name not in setting_names(config):
        raise InvalidInputError(f"unknown setting {name!r}. Known: {', '.join(setting_names(config))}.")
    section, _, key = name.rpartition(".")
    return (getattr(config, section) if section else config), key


def _parse(name: str, raw: str, kind: type) -> Any:
    if kind is bool:
        low = raw.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise InvalidInputError(f"{name} is true or false, not {raw!r}.")
    if kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            raise InvalidInputError(
                f"{name} is a{'n integer' if kind is int else ' number'}, not {raw!r}."
            ) from None
    return raw


def load_config(paths: Paths) -> Config:
    config = Config()
    if paths.config_file.exists():
        try:
            data = tomllib.loads(paths.config_file.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InvalidInputError(
                f"{paths.config_file} is not valid TOML ({exc}). Fix or delete it."
            ) from None
        _apply(config, data, str(paths.config_file))
    return config


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def dump_config(config: Config) -> str:
    data = config.to_dict()
    lines = [f"{k} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for section, values in data.items():
        if isinstance(values, dict):
            lines.append(f"\n[{section}]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def save_config(paths: Paths, config: Config) -> None:
    paths.ensure()
    tmp = paths.config_file.with_suffix(".tmp")
    tmp.write_text("# VeraMem Desktop settings\n" + dump_config(config), "utf-8")
    os.replace(tmp, paths.config_file)
