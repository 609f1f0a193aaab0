"""The write path: raw messages in, checked memories out.

``ingest`` stores episodes with their indexes; ``derive`` runs extraction → quote check →
authority → reconciliation → versions; ``dates`` resolves relative time against the
message's own; ``context`` gives a model earlier turns as reference; ``decisions`` records
what the write path decided and why.
"""
