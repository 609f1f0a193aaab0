"""House rule: the CLI opens the store in one place, ``common.open_memory``, and a command gets the open
facade from ``@pass_memory`` (or a ``with open_memory(...)`` block), which closes it however the command
ends. No command builds a ``Memory`` itself, holds ``open_memory``'s result past a block, or closes by hand.

The rule reads veramem_desktop/cli/ with ``ast``; each kind of violation is planted in a scratch source."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "veramem_desktop" / "cli"

#: functions that may take open_memory's facade outside a with block, and why
FACADE_FOR_PATHS = {
    "_memory": "backup_cmds: the facade for its paths and settings only; it never opens the store",
}
#: the closes by hand that are allowed, by file and why
CLOSES = {
    "import_cmds.py": "inside the clock the import's JSON reports (closing again at the end is a no-op)",
}


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _function_of(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.FunctionDef):
            return node.name
    return ""


def offences(name: str, source: str) -> list[str]:
    """What breaks the rule in the CLI module ``name`` with ``source``."""
    tree = ast.parse(source)
    parents = _parents(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        where = f"{name}:{node.lineno}"
        if isinstance(func, ast.Name) and func.id == "Memory" and name != "common.py":
            found.append(f"{where}: builds a Memory (use @pass_memory)")
        if isinstance(func, ast.Name) and func.id == "open_memory" and name != "common.py":
            in_with = isinstance(parents.get(node), ast.withitem)
            if not in_with and _function_of(node, parents) not in FACADE_FOR_PATHS:
                found.append(f"{where}: open_memory outside a with block (use @pass_memory)")
        closes = isinstance(func, ast.Attribute) and func.attr == "close" and name not in CLOSES
        if (
            closes
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "mem"
        ):
            found.append(f"{where}: closes the facade by hand (@pass_memory closes it)")
    return found


def test_the_cli_opens_and_closes_the_store_in_one_place() -> None:
    found = [o for path in sorted(CLI.glob("*.py")) for o in offences(path.name, path.read_text("utf-8"))]
    assert found == []


def test_most_commands_get_the_store_from_pass_memory() -> None:
    uses = sum(path.read_text("utf-8").count("@pass_memory") for path in CLI.glob("*.py"))
    assert uses >= 30


def test_planted_open_sites_are_refused() -> None:
    planted = (
        "def cmd(ctx):\n"
        "    mem = open_memory(ctx)\n"
        "    mem.close()\n"
        "def other(ctx):\n"
        "    mem = Memory(None)\n"
        "def fine(ctx):\n"
        "    with open_memory(ctx) as mem:\n"
        "        pass\n"
    )
    assert offences("search_cmds.py", planted) == [
        "search_cmds.py:2: open_memory outside a with block (use @pass_memory)",
        "search_cmds.py:3: closes the facade by hand (@pass_memory closes it)",
        "search_cmds.py:5: builds a Memory (use @pass_memory)",
    ]
