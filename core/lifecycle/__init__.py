"""Lifecycle: what happens to memories after they are written.

Consolidation and its stages (revise, archive, merge, fuse, summarise, distil, budget,
decay), links, conflicts, expiry, outcomes and learned ranking, sharing, and forget.
"""
