"""The write path: raw messages in, checked memories out.

``ingest`` stores episodes with their indexes; ``derive`` runs extraction → quote check →
authority → reconciliation, ``guards`` applies the batch rules and ``versions`` writes the
result (new memories, versions, retractions), over the values in ``plan``; ``dates``
resolves relative time against the message's own, ``written_dates`` normalises dates
written out in full and ``times`` reads user-given times; ``context`` gives a model earlier
turns as reference; ``decisions`` records what the write path decided and why.
"""
