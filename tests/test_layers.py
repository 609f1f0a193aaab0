"""The layers of DESIGN.md §1 hold at run time, not just in the import-linter contracts."""

from __future__ import annotations

import subprocess
import sys


def _modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_importing_the_engine_loads_no_ui_network_or_model_runtime() -> None:
    loaded = _modules_after(
        "import veramem_desktop.core.storage.store, veramem_desktop.core.storage.ledger, veramem_desktop.core.storage.episodes"
    )
    for forbidden in ("textual", "click", "onnxruntime", "httpx", "mcp", "ollama", "fastapi"):
        assert forbidden not in loaded, f"the engine pulled in {forbidden}"


def test_veramem_help_does_not_load_heavy_modules() -> None:
    loaded = _modules_after("from veramem_desktop.cli import cli")
    for heavy in ("textual", "onnxruntime", "numpy", "mcp", "fastapi"):
        assert heavy not in loaded, f"`veramem --help` would import {heavy}"


def test_nothing_generic_is_installed_at_the_top_level() -> None:
    import importlib.util

    for name in ("core", "models", "sync", "tui"):
        spec = importlib.util.find_spec(name)
        assert spec is None or "veramem" not in str(spec.origin or spec.submodule_search_locations), name


def test_every_package_folder_is_listed_for_installation() -> None:
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = {v: k for k, v in config["package-dir"].items()}
    on_disk = set()
    for top, name in mapping.items():
        for init in (root / top).rglob("__init__.py"):
            rel = init.parent.relative_to(root / top).parts
            on_disk.add(".".join((name, *rel)))
    assert on_disk == listed, f"missing: {on_disk - listed}, stale: {listed - on_disk}"
