"""Lifecycle: what happens to memories after they are written.

Consolidation and its stages (revise, archive, merge, fuse, summarise, distil, budget,
decay), links, conflicts, expiry, outcomes (which train recall's learned ranking), sharing, and forget.
"""
