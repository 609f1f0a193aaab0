"""Every lifecycle module imports on its own, whichever is imported first.

The link graph (``lifecycle/links``) is read by search's channels, and the linker reads
search's query helpers: before the graph and the linker were apart, importing ``links`` first
went round ``recall`` back into the half-loaded ``links`` and failed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LIFECYCLE = Path(__file__).resolve().parents[2] / "core" / "lifecycle"

# One interpreter; before each import every project module is dropped, so each one is the first.
CODE = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m.startswith("veramem_desktop")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except ImportError as exc:
        failed.append(f"{name}: {exc}")
print("\\n".join(failed))
"""


def test_each_lifecycle_module_imports_first_in_a_fresh_interpreter() -> None:
    names = sorted(
        f"veramem_desktop.core.lifecycle.{p.stem}" for p in LIFECYCLE.glob("*.py") if p.stem != "__init__"
    )
    assert "veramem_desktop.core.lifecycle.links" in names
    out = subprocess.run(
        [sys.executable, "-c", CODE, *names], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == ""
