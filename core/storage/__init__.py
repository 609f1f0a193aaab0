"""Storage: the encrypted store and one repository per table family.

``store`` opens the SQLCipher file and owns its lock; ``schema`` holds the numbered
migrations; ``ledger`` the hash chain; ``episodes``, ``items``, ``index``, ``vectors`` and
``grants`` own the SQL of their tables. What storage applies on every read and write lives here too:
the access predicate (``access``), who is acting (``actor``), the input limits of an add (``limits``)
and the rejected-value ledger that withholds what a person rejected (``rejections``, with
``rejection_keys`` and ``near_misses``). Nothing here decides what to remember.
"""
