"""A child process that adds episodes in a loop, printing each id once it is committed.

Usage: python -m support.writer HOME SECONDS TAG
"""

from __future__ import annotations

import sys
import time

from support.internals import store_of
from veramem_desktop.memory import Memory


def main() -> None:
    home, seconds, tag = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    mem = Memory(home)
    _ = store_of(mem)
    print("ready", flush=True)
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        result = mem.add([f"{tag} message {i} " + "padding " * 20, f"{tag} reply {i}"], session_id=tag)
        for ep in result.episodes:
            print(ep.id, flush=True)
        i += 1
    mem.close()


if __name__ == "__main__":
    main()
