"""House rule: the ``Memory`` facade is a thin composition root with its services as attributes.

``Memory`` (veramem_desktop/memory.py) builds the services of veramem_desktop/services/ once and keeps them as
typed attributes (``mem.recall``, ``mem.reading``, ``mem.review`` …); surfaces call them there. On the
facade itself:

- each public call is its own wiring: a one-line docstring and ONE statement (only the calls below may hold
  more, each for the reason given), and never a forward to a service's call (``return self.review.approve(
  …)``): a surface calls the service;
- a few of the SDK's most common calls are shortcuts, each written ``name = via("<service>", <Class>.<call>)``
  so that it IS the service's call (one signature, one description); the service named must hold that class,
  and the shortcuts are exactly the handful listed here, so a new one is added on purpose.

The rule reads the source with ``ast``; each violation is planted in a scratch copy to show that it is refused.
"""

from __future__ import annotations

import ast
from pathlib import Path

MEMORY_PY = Path(__file__).resolve().parents[1] / "veramem_desktop" / "memory.py"

#: public calls that are the facade's own wiring, and why each needs more than one statement
WIRING = {
    "create": "makes the store and hands it to a new facade (opening is the composition root's job)",
    "unlock_with_recovery_code": "opens the store with a recovered key, under the facade's open lock",
    "close": "stops the background linker, then drops the engine, the index, the services and the store",
}

#: public calls that hand a service what only the facade has (so they are not forwards a surface could skip)
GIVES_PARTS = {
    "status": "the opening reads the open store and the device id, which the facade holds",
}

#: the shortcuts: the calls the README and docs/guide.md show on ``mem`` (the SDK's most common calls)
SHORTCUTS = frozenset(
    {
        "add",
        "search",
        "answer",
        "feedback",
        "get",
        "memories",
        "history",
        "episodes",
        "verify",
        "forget_preview",
        "forget",
        "import_history",
        "consolidate",
        "export_trajectories",
        "export_training",
    }
)

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


def services(cls: ast.ClassDef) -> dict[str, str]:
    """Each service attribute and the class it holds: a property returning a class of services/, or an
    attribute ``__init__`` sets to one (``self.recall = Recall(...)``)."""
    found: dict[str, str] = {}
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        is_property = any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)
        if is_property and isinstance(fn.returns, ast.Name) and not fn.name.startswith("_"):
            found[fn.name] = fn.returns.id
        if fn.name == "__init__":
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(target := node.targets[0], ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                    and not target.attr.startswith("_")
                    and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Name)
                ):
                    found[target.attr] = node.value.func.id
    return found


def _forwarded(statement: ast.stmt, held: dict[str, str]) -> str | None:
    """``service.call`` when ``statement`` only forwards to a service's call (``return self.review.x(…)``)."""
    value = statement.value if isinstance(statement, DELEGATING) else None
    if not isinstance(value, ast.Call) or not isinstance(call := value.func, ast.Attribute):
        return None
    owner = call.value
    held_by_self = (
        isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self"
    )
    if held_by_self and isinstance(owner, ast.Attribute) and owner.attr in held:
        return f"{owner.attr}.{call.attr}"
    return None


def _method_offences(cls: ast.ClassDef, held: dict[str, str]) -> list[str]:
    found: list[str] = []
    for fn in _public_methods(cls):
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
        elif (target := _forwarded(body[0], held)) and fn.name not in GIVES_PARTS:
            found.append(f"{fn.name}: forwards to {target} (call the service, or make it a via shortcut)")
    return found


def _shortcuts(cls: ast.ClassDef) -> dict[str, ast.expr]:
    return {
        t.id: n.value
        for n in cls.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and not t.id.startswith("_")
    }


def _shortcut_offences(cls: ast.ClassDef, held: dict[str, str]) -> list[str]:
    found: list[str] = []
    made = _shortcuts(cls)
    for name, value in made.items():
        ok = (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "via"
            and len(value.args) == 2
            and isinstance(value.args[0], ast.Constant)
            and isinstance(value.args[1], ast.Attribute)
            and isinstance(value.args[1].value, ast.Name)
        )
        if not ok:
            found.append(f"{name}: a shortcut is via(<service>, <Class>.<call>)")
            continue
        assert isinstance(value, ast.Call)
        service, call = value.args
        assert isinstance(service, ast.Constant) and isinstance(call, ast.Attribute)
        assert isinstance(call.value, ast.Name)
        if held.get(str(service.value)) != call.value.id:
            found.append(f"{name}: {service.value!r} does not hold a {call.value.id}")
        if name not in SHORTCUTS:
            found.append(f"{name}: not one of the listed shortcuts (call mem.{service.value}.{call.attr})")
    found += [f"{name}: a listed shortcut that memory.py lacks" for name in sorted(SHORTCUTS - set(made))]
    return found


def offences(source: str) -> list[str]:
    """What breaks the rule in ``source`` (a memory.py), one line per public name at fault."""
    cls = _memory_class(ast.parse(source))
    held = services(cls)
    return _method_offences(cls, held) + _shortcut_offences(cls, held)


def _source() -> str:
    return MEMORY_PY.read_text(encoding="utf-8")


def test_each_public_call_of_memory_is_wiring_or_a_listed_shortcut() -> None:
    assert offences(_source()) == []


def test_the_services_are_typed_attributes() -> None:
    held = services(_memory_class(ast.parse(_source())))
    assert {"recall", "adding", "curation", "reading", "review", "grants", "outcomes", "measuring"} <= set(
        held
    )
    assert {"organiser", "writes", "importer", "consolidation", "sync", "opening"} <= set(held)
    assert held["recall"] == "Recall" and held["review"] == "Review" and held["sync"] == "DeviceSync"


def test_each_wiring_exception_names_a_public_call_that_needs_it() -> None:
    methods = {fn.name: fn for fn in _public_methods(_memory_class(ast.parse(_source())))}
    for name, reason in WIRING.items():
        assert name in methods and reason, name
        fn = methods[name]
        body = fn.body[1:] if _docstring(fn) is not None else fn.body
        assert len(body) > 1, f"{name} is one statement now: take it off the wiring list"
    assert set(GIVES_PARTS) <= set(methods)


def test_a_planted_second_statement_is_refused(tmp_path: Path) -> None:
    source = _source()
    one = "        return self._backend.capabilities.name\n"
    assert source.count(one) == 1
    scratch = tmp_path / "memory.py"
    scratch.write_text(
        source.replace(one, "        name = self._backend.capabilities.name\n        return name\n"),
        encoding="utf-8",
    )
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "llm_name: 2 statements after the docstring (one delegation)"
    ]


def test_logic_in_place_of_the_delegation_is_refused(tmp_path: Path) -> None:
    source = _source()
    one = "        return self._backend.capabilities.name\n"
    scratch = tmp_path / "memory.py"
    scratch.write_text(
        source.replace(one, "        if self._llm is None:\n            return 'none'\n"), encoding="utf-8"
    )
    assert offences(scratch.read_text(encoding="utf-8")) == ["llm_name: a If statement, not a delegation"]


def test_a_long_or_missing_docstring_on_the_facade_is_refused(tmp_path: Path) -> None:
    source = _source()
    doc = '        """The LLM backend\'s name."""\n'
    assert source.count(doc) == 1
    scratch = tmp_path / "memory.py"
    scratch.write_text(source.replace(doc, '        """The name.\n\n        More."""\n'))
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "llm_name: a docstring of 3 lines (one line here)"
    ]
    scratch.write_text(source.replace(doc, ""))
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "llm_name: no docstring (one line on the facade, the full text on the service)"
    ]


def test_a_planted_forward_to_a_service_is_refused(tmp_path: Path) -> None:
    source = _source()
    anchor = "    def status(self)"
    assert source.count(anchor) == 1
    forward = (
        "    def approve(self, memory_id: str) -> Any:\n"
        '        """Mark a memory verified."""\n'
        "        return self.review.approve(memory_id)\n\n"
    )
    scratch = tmp_path / "memory.py"
    scratch.write_text(source.replace(anchor, forward + anchor), encoding="utf-8")
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "approve: forwards to review.approve (call the service, or make it a via shortcut)"
    ]


def test_a_planted_shortcut_outside_the_list_or_to_the_wrong_service_is_refused(tmp_path: Path) -> None:
    source = _source()
    anchor = '    search = via("recall", Recall.search)\n'
    assert source.count(anchor) == 1
    scratch = tmp_path / "memory.py"
    scratch.write_text(source.replace(anchor, anchor + '    approve = via("review", Review.approve)\n'))
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "approve: not one of the listed shortcuts (call mem.review.approve)"
    ]
    scratch.write_text(source.replace(anchor, '    search = via("reading", Recall.search)\n'))
    assert offences(scratch.read_text(encoding="utf-8")) == ["search: 'reading' does not hold a Recall"]
    scratch.write_text(source.replace(anchor, "    search = lambda self, q: self.recall.search(q)\n"))
    assert offences(scratch.read_text(encoding="utf-8")) == [
        "search: a shortcut is via(<service>, <Class>.<call>)"
    ]


def test_a_shortcut_is_the_services_own_call(tmp_path: Path) -> None:
    from veramem_desktop.memory import Memory
    from veramem_desktop.services.recall import Recall

    assert Memory.search.__doc__ == Recall.search.__doc__
    assert Memory.search.call is Recall.search
    mem = Memory(tmp_path)  # nothing opens: the recall service is built with the facade
    assert mem.search == mem.recall.search and mem.answer == mem.recall.answer
