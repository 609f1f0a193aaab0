"""What the caller hands the app: how to open a memory, and how to create one on first run.

The TUI never opens the store or a model itself. ``run_app`` (or a test) builds these
callables around :class:`veramem_desktop.memory.Memory` and passes them in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veramem_desktop.keys import NewKey
    from veramem_desktop.memory import Memory


@dataclass(frozen=True)
class InitRequest:
    """What the person chose on the first-run screen."""

    use_keyring: bool
    passphrase: str | None = None


#: passphrase (None: keyring or VERAMEM_PASSPHRASE) -> a Memory, not yet opened.
MemoryFactory = Callable[[str | None], "Memory"]
#: the first-run choice -> a new open Memory and its key (with the recovery code to show once).
CreateMemory = Callable[[InitRequest], "tuple[Memory, NewKey]"]
#: True when an OS keyring can hold the store key (may talk to D-Bus, so it runs in a worker).
KeyringProbe = Callable[[], bool]
