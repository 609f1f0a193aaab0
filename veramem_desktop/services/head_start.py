"""A head start for a program that is about to open the store and embed a query (``veramem search``).

A fresh ``veramem search`` spends most of its time importing its modules, which holds the
interpreter lock, while the two slowest steps of opening a store do not need it: stretching the
passphrase (Argon2id in libsodium) and building the embedding model's session (onnxruntime, in
C++; the model file is read and hashed there too). :meth:`HeadStart.begin` starts both on threads
of their own before the program imports the rest of itself, so on a machine with two cores they
run beside the imports instead of after them.

Nothing here decides anything or reports anything: each thread does exactly what the ordinary
path would do (the same key manager loading the key the same way, the embedder the settings
describe), and its result is taken only where it is certainly what the ordinary path would get
(:meth:`EarlyKey.key_for`, :meth:`EarlyEmbedder.take`). When anything goes wrong early (no store,
no passphrase in the environment, a wrong one, a missing or corrupt model), the early result is
dropped and the ordinary path does the work again and reports the problem as it always did.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from veramem_desktop.config import EmbedderSettings
    from veramem_desktop.core.protocols import Embedder

    from .embedding import EmbedderArgs


class EarlyKey:
    """The store's key, loaded on a thread the way ``Opening.open`` loads it when no passphrase is given
    (``VERAMEM_PASSPHRASE``; never a prompt), with the key information file as it read then. Only for a
    key kept under a passphrase, whose stretching is the slow part: a key in the OS keyring loads
    quickly, and asking the keyring twice could show its unlock prompt twice."""

    def __init__(self, keyinfo: Path) -> None:
        from veramem_desktop.keys import KeyManager  # imported here, so the thread runs (almost) only C

        self._keys = KeyManager(keyinfo, lambda: None)
        self._path = keyinfo
        self._read: bytes | None = None
        self._key: bytes | None = None
        self._thread = threading.Thread(target=self._load, name="veramem-early-key", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        try:
            before = self._path.read_bytes()
            key = self._keys.load()
            if self._path.read_bytes() == before:  # a key information file changed meanwhile is read again
                self._read, self._key = before, key
        except Exception:  # the ordinary path loads the key again and says what is wrong
            return

    def key_for(self, keyinfo: Path) -> bytes | None:
        """The key loaded early, once: when it was loaded from ``keyinfo`` and that file still reads the
        same; otherwise None (the caller loads the key itself, as it does for any later opening)."""
        self._thread.join()
        key, self._key = self._key, None
        if key is None or Path(keyinfo) != self._path:
            return None
        try:
            unchanged = Path(keyinfo).read_bytes() == self._read
        except OSError:
            return None
        return key if unchanged else None

    def finish(self) -> None:
        self._thread.join()


class EarlyEmbedder:
    """The embedder a store most likely gets (:func:`~.embedding.build_embedder` before the store is open:
    the configured model, computing in int8 unless the settings say otherwise), loading on a thread.
    :meth:`take` hands it over only for exactly the arguments it was made with."""

    def __init__(self, args: EmbedderArgs, embedder: Embedder) -> None:
        self._args = args
        self._embedder: Embedder | None = embedder
        self._thread = threading.Thread(target=self._load, name="veramem-early-model", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        load: Any = getattr(self._embedder, "load", None)
        try:
            load()
        except Exception:  # a missing or corrupt model: loading again where it is first used reports it
            return

    def take(self, args: EmbedderArgs) -> Embedder | None:
        """The early embedder (perhaps still loading: its first use waits for it) when it was made with
        ``args``; otherwise None, once the early one is loaded and let go, so the two models are never
        resident together (a store whose vectors are float32 with no ``embedder.compute`` set pays for
        the int8 load in vain; setting ``compute`` or ``veramem reindex`` to int8 avoids it)."""
        if args == self._args:
            return self._embedder
        self._thread.join()
        self._embedder = None
        return None

    def finish(self) -> None:
        self._thread.join()


class HeadStart:
    """The store's key and the likely embedding model of one home, loading on threads from the moment the
    program knows it will search (``veramem search``); the facade takes them (``Memory(head_start=…)``)."""

    def __init__(self, key: EarlyKey | None = None, embedder: EarlyEmbedder | None = None) -> None:
        self.key = key
        self.embedder = embedder

    @classmethod
    def begin(cls, home: str | Path | None) -> HeadStart:
        """Start for the store of ``home`` (as ``Memory(home)`` finds it); nothing where no store was made
        there, or its settings do not read (the ordinary path says what is wrong).

        The modules the threads use are imported here, on the caller's thread (the program needs them
        anyway): a thread that ran Python while the caller imports would hold the interpreter lock the
        caller waits for, and on a busy machine be paused holding it."""
        try:
            from veramem_desktop.config import load_config, resolve_paths

            paths = resolve_paths(home)
            if not paths.keyinfo.exists():
                return cls()
            config = load_config(paths)
            store = Path(config.store_path) if config.store_path else paths.store
            if not store.exists():
                return cls()
            key = EarlyKey(paths.keyinfo) if _under_passphrase(paths.keyinfo) else None
        except Exception:  # the facade finds the paths and reads the settings again, and reports it
            return cls()
        return cls(key, _early_embedder(config.embedder))

    def finish(self) -> None:
        """Wait for the threads (the program does, before it exits, so none is cut off mid-load)."""
        for part in (self.key, self.embedder):
            if part is not None:
                part.finish()


def _under_passphrase(keyinfo: Path) -> bool:
    """Whether the store's key is kept under a passphrase given in ``VERAMEM_PASSPHRASE`` (else the early
    thread would have nothing to stretch)."""
    from veramem_desktop.keys import read_keyinfo

    return bool(os.environ.get("VERAMEM_PASSPHRASE")) and read_keyinfo(keyinfo).mode == "passphrase"


def _early_embedder(cfg: EmbedderSettings) -> EarlyEmbedder | None:
    """The likely embedder, loading; None when the settings are refused (the facade refuses them again)."""
    try:
        import onnxruntime  # noqa: F401  (imported here, not on the loading thread)
        import tokenizers  # noqa: F401

        from veramem_desktop.models import onnx_graph  # noqa: F401

        from .embedding import embedder_args, make_embedder

        args = embedder_args(cfg, lambda: None)
        return EarlyEmbedder(args, make_embedder(args))
    except Exception:
        return None
