"""House rule: the ``Memory`` facade is a thin composition root.

Each public call of ``Memory`` (veramem_desktop/memory.py) is a one-line docstring and ONE statement that
delegates to the service that owns it (``return self._reading().get(...)``); the logic and the full
description live once, in veramem_desktop/services/ or the engine. Only the wiring below may hold more,
each for the reason given. The rule reads the source with ``ast``; a violation is planted in a scratch
copy to show that it is refused.
"""

from __future__ import annotations

import ast
from pathlib import Path

MEMORY_PY = Path(__file__).resolve().parents[1] / "veramem_desktop" / "memory.py"

#: public calls that are the facade's own wiring, and why each needs more than one statement
WIRING = {
    "create": "makes the store and hands it to a new facade (opening is the composition root's job)",
    "unlock_with_recovery_code": "opens the store with a recovered key, under the facade's open lock",
    "close": "stops the background linker, then drops the engine, the index and the store",
}

#: statements that delegate: a return of a call or value, or a call whose result is not needed
DELEGATING = (ast.Return, ast.Expr)


def _memory_class(tree: ast.Module) -> ast.ClassDef:
    found = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Memory"]
    assert len(found) == 1, "memory.py defines class Memory once"
    return found[0]


def _public_methods(cls: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [
        n
        for n in cls.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and not n.name.startswith("_")
    ]


def _docstring(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    return ast.get_docstring(fn, clean=True)


def offences(source: str) -> list[str]:
    """What breaks the rule in ``source`` (a memory.py), one line per public method at fault."""
    found: list[str] = []
    for fn in _public_methods(_memory_class(ast.parse(source))):
        if fn.name in WIRING:
            continue
        doc = _docstring(fn)
        body = fn.body[1:] if doc is not None else fn.body
        if doc is None:
            found.append(f"{fn.name}: no docstring (one line on the facade, the full text on the service)")
        elif "\n" in doc:
            found.append(f"{fn.name}: a docstring of {doc.count(chr(10)) + 1} lines (one line here)")
        if len(body) != 1:
            found.append(f"{fn.name}: {len(body)} statements after the docstring (one delegation)")
        elif not isinstance(body[0], DELEGATING):
            found.append(f"{fn.name}: a {type(body[0]).__name__} statement, not a delegation")
    return found


def test_each_public_call_of_memory_is_one_delegation_with_a_one_line_docstring() -> None:
    assert offences(MEMORY_PY.read_text(encoding="utf-8")) == []


def test_each_wiring_exception_names_a_public_call_that_needs_it() -> None:
    methods = {fn.name: fn for fn in _public_methods(_memory_class(ast.parse(MEMORY_PY.read_text("utf-8"))))}
    for name, reason in WIRING.items():
        assert name in methods and reason, name
        fn = methods[name]
        body = fn.body[1:] if _docstring(fn) is not None else fn.body
        assert len(body) > 1, f"{name} is one statement now: take it off the wiring list"


def test_a_planted_second_statement_is_refused(tmp_path: Path) -> None:
    source = MEMORY_PY.read_text(encoding="utf-8")
    one = "        return self.organiser.links_pending()\n"
    assert source.count(one) == 1
    scratch = tmp_path / "memory.py"
    scratch.write_text(
        source.replace(one, "        pending = self.organiser.links_pending()\n        return pending\n"),
        encoding="utf-8",
    )
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "links_pending: 2 statements after the docstring (one delegation)"
    ]


def test_logic_in_place_of_the_delegation_is_refused(tmp_path: Path) -> None:
    source = MEMORY_PY.read_text(encoding="utf-8")
    one = "        return self.organiser.links_pending()\n"
    scratch = tmp_path / "memory.py"
    scratch.write_text(
        source.replace(one, "        if self._open is None:\n            return 0\n"), encoding="utf-8"
    )
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "links_pending: a If statement, not a delegation"
    ]


def test_a_long_or_missing_docstring_on_the_facade_is_refused(tmp_path: Path) -> None:
    source = MEMORY_PY.read_text(encoding="utf-8")
    doc = '        """How many memories wait for the linker."""\n'
    assert source.count(doc) == 1
    scratch = tmp_path / "memory.py"
    scratch.write_text(source.replace(doc, '        """How many memories wait.\n\n        More."""\n'))
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "links_pending: a docstring of 3 lines (one line here)"
    ]
    scratch.write_text(source.replace(doc, ""))
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "links_pending: no docstring (one line on the facade, the full text on the service)"
    ]
