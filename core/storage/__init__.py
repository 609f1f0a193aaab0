"""Storage: the encrypted store and one repository per table family.

``store`` opens the SQLCipher file and owns its lock; ``schema`` holds the numbered
migrations; ``ledger`` the hash chain; ``episodes``, ``items``, ``index``, ``vectors`` and
``grants`` own the SQL of their tables. Nothing here decides what to remember or show.
"""
