"""What the engine uses of a SQLCipher connection, as a type, and how parameters bind to it.

``sqlcipher3`` ships no type stubs, so its connection and cursor are ``Any`` to a type checker.
:class:`Connection` and :class:`Cursor` name the part of the DB-API the engine calls (the driver's
objects satisfy them structurally), so a misspelt method or a wrong argument count is caught by
mypy instead of at run time. Rows stay ``Any``: the store reads plain tuples by position.

Binding: the driver binds an exact ``str``, ``int``, ``float``, ``bytes`` or ``None`` at once, but
probes any other type for an adapter first (two attribute lookups that raise internally, about 4 us
each). Registering an adapter for ``None`` and for each vocabulary of core/vocabulary.py (``str``
subclasses) skips the probes; the bound values are the same (NULL, and the member's plain string).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import sqlcipher3
from veramem_desktop.core.vocabulary import Vocabulary

#: what a statement's parameters may be: a sequence for ``?`` marks, a mapping for ``:name`` marks
Parameters = Sequence[Any] | dict[str, Any]


@runtime_checkable
class Cursor(Protocol):
    """The cursor :meth:`Connection.execute` returns."""

    @property
    def rowcount(self) -> int: ...

    @property
    def lastrowid(self) -> int | None: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


@runtime_checkable
class Connection(Protocol):
    """An open SQLCipher connection (``sqlcipher3.Connection``), as the engine uses it.

    The engine begins and ends transactions with SQL (``BEGIN IMMEDIATE``, ``SAVEPOINT``, ``COMMIT``
    in :meth:`Store.atomic <veramem_desktop.core.storage.store.Store.atomic>`; the connection runs
    with ``isolation_level=None``); :meth:`commit` and :meth:`rollback` are the DB-API's own ends of
    a transaction, named so that any connection the engine is given has them."""

    def execute(self, sql: str, parameters: Parameters = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Parameters], /) -> Cursor: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def close(self) -> None: ...

    def backup(self, target: Connection, *, pages: int = ...) -> None: ...

    def set_trace_callback(self, callback: Callable[[str], object] | None, /) -> None: ...


def register_adapters() -> None:
    """Bind NULL and vocabulary members without the driver's probes (the driver keeps one registry per
    process; registering again replaces an adapter with the same one)."""
    # A NULL binds as NULL either way; found at once, the driver skips its two failing probes per NULL
    # (a twentieth of a sync apply, issue 17).
    sqlcipher3.register_adapter(type(None), lambda value: value)
    # A member binds as its plain string, the same text the driver would bind after probing it.
    for vocabulary in Vocabulary.__subclasses__():
        sqlcipher3.register_adapter(vocabulary, str)
