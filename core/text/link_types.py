"""The types of edge between two memories: what the linker gives a pair, and what recall's link channel follows."""

#: the types a model or the rules may give a pair of memories
LINK_TYPES = ("supports", "extends", "contrasts", "related", "prerequisite")
