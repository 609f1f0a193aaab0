"""Shared test helpers, importable as ``support`` (``tests/conftest.py`` puts ``tests/`` on the path)."""
