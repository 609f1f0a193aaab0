"""Secrets in text bound for sharing: passwords, API keys, tokens, private keys, credentials in
URLs and high-entropy strings (pure functions over text; nothing is sent anywhere).

The detectors are Yelp's ``detect-secrets`` plugins (AWS, GitHub, GitLab, Slack, Stripe,
OpenAI, JWT, private keys, basic-auth URLs, ``password = "…"`` keywords, base64 and hex
entropy), run line by line with their own false-positive filters. Their network
verification is never called. They read code and configuration; memories are prose, so
one more rule reads a secret stated in a sentence ("the wifi password is hunter2").
"""

from __future__ import annotations

import re
from typing import Any

#: Keywords that introduce a secret in prose (words may be joined by a space, "_" or "-"), and the kind
#: each is reported as.
_PROSE_KEYWORDS = {
    "password": "password",
    "passwd": "password",
    "pwd": "password",
    "passcode": "password",
    "passphrase": "password",
    "credentials": "password",
    "login": "password",
    "wifi key": "password",
    "pin": "pin",
    "pin code": "pin",
    "api key": "api-key",
    "apikey": "api-key",
    "access key": "api-key",
    "secret key": "api-key",
    "token": "token",
    "access token": "token",
    "auth token": "token",
    "bearer token": "token",
    "deploy token": "token",
}
_PROSE = re.compile(
    r"\b(?P<key>"
    + "|".join(sorted((k.replace(" ", r"[\s_-]?") for k in _PROSE_KEYWORDS), key=len, reverse=True))
    + r")\b(?:[^.!?\n]{0,40}?\b(?:is|was|are|reads|set to)\b|\s*[=:]|(?P<bare>))\s*[\"'“‘`]?"
    r"(?P<value>[^\s\"'”’`]{3,})",
    re.I,
)
#: A value written straight after its keyword ("with password Tr0ub4dor&3") must look made up:
#: letters mixed with digits or symbols.
_MADE_UP = re.compile(r"^(?=.*[A-Za-z])(?=.*[\d\W_]).{6,}$")
#: Words that describe a secret rather than being one ("the password is required").
_DESCRIPTIVE = frozenset(
    re.findall(
        r"\w+",
        """
    required needed valid invalid strong weak long short secret private public correct wrong same different
    empty blank unknown optional mandatory new old default free temporary case sensitive never always usually
    often sometimes also still only just now then there here what which that this these those not the a an
    in on at to for from with by of and or but your my our their his her its one two kept written stored
    saved shown hidden printed encrypted hashed expired changed reset rotated managed synced""",
    )
)
_ENTROPY_TYPES = {"Base64 High Entropy String", "Hex High Entropy String"}


def _kind_of(secret_type: str) -> str:
    if secret_type in _ENTROPY_TYPES:
        return "high-entropy-string"
    if secret_type == "Secret Keyword":
        return "password"
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def _prose_value_is_secret(value: str) -> bool:
    if len(value) < 3 or value.startswith("{"):  # a {slot} left by abstraction is not a value
        return False
    low = value.lower()
    if low in _DESCRIPTIVE or low.endswith(("ed", "ing", "ly", "able", "ible")) and low.isalpha():
        return False
    return True


class SecretScanner:
    """detect-secrets' plugins and filters, built once and reused for every text."""

    def __init__(self) -> None:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.filters import heuristic
        from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
        from detect_secrets.plugins.keyword import KeywordDetector
        from detect_secrets.settings import get_settings

        # Plugins call a service to verify what they find only when this filter is configured; it
        # is not by default, and is removed here in case: nothing found ever leaves the machine.
        get_settings().disable_filters(
            "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
        )

        classes: list[Any] = list(get_mapping_from_secret_type_to_class().values())
        # IPs are personal data, found by core/trust/pii.py.
        self._plugins: list[Any] = [cls() for cls in classes if cls.__name__ != "IPPublicDetector"]
        #: detect-secrets finds its plugins by walking its package; a build that left them out finds
        #: none, and the gate then refuses to share rather than share unchecked.
        self.ready = len(self._plugins) >= 10
        self._entropy = HighEntropyStringsPlugin
        self._keyword = KeywordDetector
        self._filters = (
            heuristic.is_sequential_string,
            heuristic.is_potential_uuid,
            heuristic.is_templated_secret,
            heuristic.is_prefixed_with_dollar_sign,
            heuristic.is_not_alphanumeric_string,
        )

    def _line(self, line: str) -> set[str]:
        kinds: set[str] = set()
        for plugin in self._plugins:
            # Keywords are read as in code ("pwd = '…'") and as in configuration ("password: …").
            names = ("memory.txt", "memory.yaml") if isinstance(plugin, self._keyword) else ("memory.txt",)
            for name in names:
                eager = isinstance(plugin, self._entropy)
                options = {"enable_eager_search": True} if eager else {}
                for secret in plugin.analyze_line(filename=name, line=line, line_number=1, **options):
                    value = secret.secret_value or ""
                    if eager and plugin.calculate_shannon_entropy(value) <= plugin.entropy_limit:
                        continue  # the eager (unquoted) search reports every word; keep those above the limit
                    if any(f(value) for f in self._filters):
                        continue
                    kinds.add(_kind_of(secret.type))
        for m in _PROSE.finditer(line):
            value = m.group("value").rstrip(".,;:!?)]}")
            if m.group("bare") is not None and not _MADE_UP.match(value):
                continue
            if _prose_value_is_secret(value):
                kinds.add(_PROSE_KEYWORDS.get(re.sub(r"[\s_-]+", " ", m.group("key").lower()), "secret"))
        return kinds

    def find(self, text: str) -> list[str]:
        """The kinds of secret found in ``text``, sorted (empty when none)."""
        kinds: set[str] = set()
        for line in text.splitlines():
            if line.strip():
                kinds |= self._line(line)
        return sorted(kinds)


def find_secrets(text: str, scanner: SecretScanner | None = None) -> list[str]:
    """The kinds of secret found in ``text`` (a scanner is built when none is given)."""
    return (scanner or SecretScanner()).find(text)
