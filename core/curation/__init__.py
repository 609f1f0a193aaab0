"""Curation: what a person (or an agent) does with memories it names by id.

``reads`` reads and erases by id, through the access rule, as one caller may; ``detail`` shows a
memory in full through those reads; ``review`` is the person's queue of candidates and conflicts to
approve or reject; ``reapply`` carries forgets and rejections over a restore. It sits above the
lifecycle, whose ``forget`` it calls, and above recall, whose states it shows.
"""
