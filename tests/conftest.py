"""Suite-wide setup: make the shared helpers in ``tests/support`` importable as ``support``."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

# Shared fixtures (isolated homes, an open store, the real CLI in a subprocess).
pytest_plugins = ["support.fixtures"]
