"""A row type's columns: the SELECT list written from a NamedTuple's field names.

A repository that returns typed rows declares the row as a ``NamedTuple`` whose fields are named
after the columns they hold, writes its statement's column list with :func:`select_list` and
builds each row with the type's ``_make``: the statement and the type then name the same columns in
the same order by construction, and a caller reads ``row.status`` instead of ``row[1]``. A field
that is not a plain column (a subquery, an aggregate) is given its expression by name.
"""

from __future__ import annotations

from collections.abc import Sequence


def select_list(fields: Sequence[str], alias: str = "", **expressions: str) -> str:
    """``fields`` as a SELECT list: each a column of the table ``alias`` (``m.id``), or the expression
    ``expressions`` gives for it. An expression naming no field is refused, so a renamed field is not
    silently read as its column."""
    unknown = set(expressions) - set(fields)
    if unknown:
        raise ValueError(f"expressions for no field: {sorted(unknown)}")
    prefix = f"{alias}." if alias else ""
    return ", ".join(expressions.get(name, prefix + name) for name in fields)
