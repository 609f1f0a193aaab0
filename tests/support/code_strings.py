"""The strings a module's code holds, for tests that read SQL out of the tree.

Docstrings are skipped; an f-string is one string with each formatted value replaced by
``RUNTIME``, so a table named at run time shows as that marker.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

RUNTIME = "\x00"  # stands for a formatted value in an f-string
CREATE = re.compile(r"CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)


def docstrings(tree: ast.Module) -> set[int]:
    """ids of the string nodes that are docstrings (of the module, a class or a function)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def strings(tree: ast.Module) -> Iterator[str]:
    """Every string of the code, an f-string with its formatted values as one marker character."""
    skip = docstrings(tree)
    inside_fstrings = {
        id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield "".join(
                p.value if isinstance(p, ast.Constant) and isinstance(p.value, str) else RUNTIME
                for p in node.values
            )
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and id(node) not in inside_fstrings
        ):
            yield node.value


def schema_tables(root: Path) -> set[str]:
    """Every table the engine's schema (in ``root/core``) creates."""
    found: set[str] = set()
    for path in sorted((root / "core").rglob("*.py")):
        for text in strings(ast.parse(path.read_text("utf-8"))):
            found |= set(CREATE.findall(text))
    return found
