"""Trust: who may see, who may change, and what a person has ruled out.

Access predicates, actors, authority review, rejected values, evidence quotes, value
normalisation, provenance, and the gates on what leaves a scope (PII, secrets) or reaches
a screen (display).
"""
