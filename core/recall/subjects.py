"""The subjects recall's hits speak about, as a union-find over what each hit is joined to.

The truth stage (core/recall/truth.py) joins a memory to its chain, its key, its conflict partners and
what stands for it, a message to its memories; the safety net (core/recall/safety_net.py) joins the
statements of one attribute of one person. Each set is one subject.
"""

from __future__ import annotations


class Groups:
    """Union-find over what hits speak about."""

    def __init__(self) -> None:
        self.parent: dict[object, object] = {}

    def find(self, x: object) -> object:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: object, b: object) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb
