"""How parameters bind to a SQLCipher connection.

The driver binds an exact ``str``, ``int``, ``float``, ``bytes`` or ``None`` at once, but probes any
other type for an adapter first (two attribute lookups that raise internally, about 4 us each).
Registering an adapter for ``None`` and for each vocabulary of core/vocabulary.py (``str``
subclasses) skips the probes; the bound values are the same (NULL, and the member's plain string).
"""

from __future__ import annotations

import sqlcipher3
from veramem_desktop.core.vocabulary import Vocabulary


def register_adapters() -> None:
    """Bind NULL and vocabulary members without the driver's probes (the driver keeps one registry per
    process; registering again replaces an adapter with the same one)."""
    # A NULL binds as NULL either way; found at once, the driver skips its two failing probes per NULL
    # (a twentieth of a sync apply, issue 17).
    sqlcipher3.register_adapter(type(None), lambda value: value)
    # A member binds as its plain string, the same text the driver would bind after probing it.
    for vocabulary in Vocabulary.__subclasses__():
        sqlcipher3.register_adapter(vocabulary, str)
