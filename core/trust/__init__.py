"""Trust: who may see, who may change, and what a person has ruled out.

The admission gate every write of content passes, evidence quotes, provenance, whether an agent
may act on a memory, what an export may hold, and the gates on what leaves a scope (PII, secrets)
or reaches a screen (display). The access predicate, actors and the rejected-value ledger are
applied by storage on every read and write, so they live in core/storage/; a person's review and
the reads by id are core/curation/'s.
"""
