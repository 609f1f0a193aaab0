"""The write path: raw messages in, checked memories out.

``ingest`` stores episodes with their indexes; ``derive`` runs extraction → quote check →
authority → reconciliation, ``guards`` applies the batch rules and ``versions`` writes the
result (new memories, versions, retractions), over the values in ``plan``; dates in memory text
are resolved against the message's own time by core/text/relative_dates.py; ``context`` gives a
model earlier turns as reference; ``decisions`` records what the write path decided and why.
"""
