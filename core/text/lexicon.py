"""lemminflect's English lexicon, loaded once on first use (the write path, recall and the answers
look words up in it)."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def lexicon() -> Any:
    """lemminflect, loaded with the first hit read, never at start-up, and without spaCy: the package
    imports spaCy, when installed, only to register token extensions nothing here uses, which costs
    seconds at a cold start (a one-shot ``veramem search``). While it loads, under the import lock (no
    other thread imports meanwhile), ``spacy`` names a stand-in whose extensions go nowhere."""
    import _imp
    import sys
    from types import SimpleNamespace

    _imp.acquire_lock()
    try:
        if "lemminflect" not in sys.modules and "spacy" not in sys.modules:
            token = SimpleNamespace(set_extension=lambda *_a, **_k: None)
            sys.modules["spacy"] = SimpleNamespace(__version__="3.0", tokens=SimpleNamespace(Token=token))  # type: ignore[assignment]
            try:
                import lemminflect
            finally:
                del sys.modules["spacy"]
        import lemminflect
    finally:
        _imp.release_lock()
    return lemminflect
