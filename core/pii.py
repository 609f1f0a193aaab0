"""A deterministic PII gate for anything leaving a user's private scope (pure functions).

Each detector returns the kinds it found. Checksums are used where the format has
one (Luhn for cards, mod-97 for IBANs), so look-alike numbers pass.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from .textproc import STOPWORDS, words

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
PHONE = re.compile(r"(?<![\w.])(\+\d{1,3}[\s.-]?)?(\(\d{1,4}\)[\s.-]?)?\d{2,4}([\s.-]\d{2,4}){1,4}(?![\w.])")
CARD = re.compile(r"(?<!\d)(\d[ -]?){12,18}\d(?!\d)")
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
IPV4 = re.compile(r"(?<![\d.])\d{1,3}(\.\d{1,3}){3}(?![\d.])")
IPV6 = re.compile(r"(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")
URL_QUERY = re.compile(r"\bhttps?://[^\s?#]+\?[^\s#]*=[^\s#]*", re.I)
STREET = re.compile(
    r"\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}"
    r"(Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Boulevard|Blvd|Drive|Dr|Court|Ct|Place|Pl|Way|Terrace|Square|Sq|"
    r"Crescent|Close|Parkway|Highway|Hwy|Strasse|Straße|Rue|Via|Calle)\b\.?"
)


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_ok(candidate: str) -> bool:
    s = candidate.replace(" ", "")
    if not 15 <= len(s) <= 34:
        return False
    rearranged = s[4:] + s[:4]
    try:
        number = int("".join(str(int(ch, 36)) for ch in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


def _ips(text: str) -> Iterable[str]:
    for m in IPV4.finditer(text):
        try:
            ipaddress.IPv4Address(m.group(0))
            yield m.group(0)
        except ValueError:
            continue
    for m in IPV6.finditer(text):
        try:
            ipaddress.IPv6Address(m.group(0))
            yield m.group(0)
        except ValueError:
            continue


def find_pii(text: str) -> list[str]:
    """The kinds of personal data found in ``text`` (empty when none)."""
    found: list[str] = []
    if EMAIL.search(text):
        found.append("email")
    if URL_QUERY.search(text):
        found.append("url-with-query")
    for m in CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and luhn_ok(digits):
            found.append("card-number")
            break
    if any(iban_ok(m.group(0)) for m in IBAN.finditer(text)):
        found.append("iban")
    if any(True for _ in _ips(text)):
        found.append("ip-address")
    # IBAN-shaped runs (valid or not) are not phone numbers.
    for m in PHONE.finditer(IBAN.sub(" ", text)):
        digits = re.sub(r"\D", "", m.group(0))
        marked = bool(m.group(1) or m.group(2))  # a +country code or an (area code)
        groups = len(re.findall(r"[\s.-]", m.group(0).strip()))
        if 7 <= len(digits) <= 15 and (marked or groups >= 2) and "card-number" not in found \
                and not IPV4.fullmatch(m.group(0)):
            found.append("phone")
            break
    if STREET.search(text):
        found.append("street-address")
    return found


def content_runs(text: str, n: int = 2) -> set[tuple[str, ...]]:
    """Runs of ``n`` consecutive content words (no stopwords, no {slot} placeholders)."""
    toks = [w for w in words(re.sub(r"\{[^}]*\}", " ", text))]
    runs = set()
    for i in range(len(toks) - n + 1):
        window = toks[i : i + n]
        if all(len(w) > 2 and w not in STOPWORDS and not w.isdigit() for w in window):
            runs.add(tuple(window))
    return runs


def canary_leaks(candidate: str, private_texts: Iterable[str]) -> set[tuple[str, ...]]:
    """Two-word runs of the owner's private memories that appear verbatim in ``candidate``."""
    mine = content_runs(candidate)
    leaked: set[tuple[str, ...]] = set()
    for text in private_texts:
        leaked |= mine & content_runs(text)
    return leaked
