"""A deterministic PII gate for anything leaving a user's private scope (pure functions).

Each detector returns the kinds it found. Numbers with a standard are checked by
well-kept libraries rather than by hand: ``python-stdnum`` validates IBANs (country
format and mod-97), card numbers (Luhn) and national identifiers (each country's own
checksum), and ``phonenumbers`` (Google's libphonenumber metadata) decides what is a
real phone number in the regions listed below, so look-alike numbers (versions, dates,
scores, build numbers) pass. Addresses, IPs and URLs with a query are found by pattern.
The libraries are imported on first use (python-stdnum alone takes ~50 ms to import), so
only sharing pays for them, not every command that opens the store.
"""

from __future__ import annotations

import importlib
import ipaddress
import re
from collections.abc import Iterable, Sequence

from veramem_desktop.core.text.terms import STOPWORDS, words

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
CARD = re.compile(r"(?<![\d-])(\d[ -]?){12,18}\d(?![\d-])")
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
IPV4 = re.compile(r"(?<![\d.])\d{1,3}(\.\d{1,3}){3}(?![\d.])")
IPV6 = re.compile(r"(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")
URL_QUERY = re.compile(r"\bhttps?://[^\s?#]+\?[^\s#]*=[^\s#]*", re.I)
STREET = re.compile(
    r"\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}"
    r"(Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Boulevard|Blvd|Drive|Dr|Court|Ct|Place|Pl|Way|Terrace|Square|Sq|"
    r"Crescent|Close|Parkway|Highway|Hwy|Strasse|Straße|Rue|Via|Calle)\b\.?"
)

#: Regions whose numbering plans are tried for numbers written without a +country code;
#: a number written with one is checked against its own country whatever this list says.
#: Plans without a trunk prefix, where any 8 or 9 digits are a valid number (Denmark,
#: Norway, Poland, …), are left out: there, dates and order numbers would read as phones.
PHONE_REGIONS: tuple[str, ...] = (
    "US",
    "CA",
    "GB",
    "IE",
    "DE",
    "FR",
    "ES",
    "PT",
    "IT",
    "NL",
    "BE",
    "CH",
    "AT",
    "SE",
    "FI",
    "BR",
    "MX",
    "IN",
    "AU",
    "NZ",
    "JP",
)
#: A date written with separators is never read as a phone number.
DATE_SHAPE = re.compile(r"^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$|^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$")

#: National identifiers: (the shape they are written in, the python-stdnum module that checks them).
NATIONAL_IDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])"), "stdnum.us.ssn"),  # US social security number
    (re.compile(r"\b756\.\d{4}\.\d{4}\.\d{2}\b"), "stdnum.ch.ssn"),  # Swiss AHV number
    (re.compile(r"\b\d{8}-?[A-Z]\b"), "stdnum.es.dni"),  # Spanish DNI
    (re.compile(r"\b[XYZ]-?\d{7}-?[A-Z]\b"), "stdnum.es.nie"),  # Spanish NIE
    (
        re.compile(r"\b[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]\b"),
        "stdnum.it.codicefiscale",
    ),  # Italian codice fiscale
    (re.compile(r"\b\d{3}\.\d{3}\.\d{3}-\d{2}\b"), "stdnum.br.cpf"),  # Brazilian CPF
    (
        re.compile(r"\b[12] ?\d{2} ?\d{2} ?(?:\d{2}|2A|2B) ?\d{3} ?\d{3} ?\d{2}\b"),
        "stdnum.fr.nir",
    ),  # French NIR
    (re.compile(r"(?<!\d)(?<!\d )\d{4} \d{4} \d{4}(?! ?\d)"), "stdnum.in_.aadhaar"),  # Indian Aadhaar
    (re.compile(r"(?<!\d)(?<!\d )\d{3} \d{3} \d{4}(?! ?\d)"), "stdnum.gb.nhs"),  # UK NHS number
)
#: A number introduced as an identity document is personal whatever its checksum says.
ID_CONTEXT = re.compile(
    r"\b(?:ssn|social security(?: number)?|national (?:id|identity|insurance)(?: number)?|passport(?: number| no\.?)?|"
    r"tax (?:id|number)|tin|nif|bsn|nino|id card(?: number)?|identity (?:card|number)|personal number|"
    r"driver'?s licen[cs]e(?: number)?)\b[\s:#=]*(?:is\s+|was\s+|no\.?\s*)?[\"'“]?"
    r"(?P<value>[A-Z0-9][A-Z0-9 .\-/]{4,20}[A-Z0-9])",
    re.I,
)


def _valid(module: str, value: str) -> bool:
    """``python-stdnum``'s ``is_valid`` of ``module`` for ``value`` (format and checksum)."""
    return bool(importlib.import_module(module).is_valid(value))


def luhn_ok(digits: str) -> bool:
    return _valid("stdnum.luhn", digits)


def iban_ok(candidate: str) -> bool:
    return _valid("stdnum.iban", candidate)


def _ips(text: str) -> Iterable[str]:
    """The IPv4 addresses in ``text``, then the IPv6 ones: each match its address class accepts."""
    for pattern, address in ((IPV4, ipaddress.IPv4Address), (IPV6, ipaddress.IPv6Address)):
        for m in pattern.finditer(text):
            try:
                address(m.group(0))
                yield m.group(0)
            except ValueError:
                continue


def _cards(text: str) -> bool:
    for m in CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and luhn_ok(digits):
            return True
    return False


def _national_id(text: str) -> bool:
    for shape, module in NATIONAL_IDS:
        if any(_valid(module, m.group(0)) for m in shape.finditer(text)):
            return True
    return any(any(ch.isdigit() for ch in m.group("value")) for m in ID_CONTEXT.finditer(text))


def _written_like_a_phone(raw: str) -> bool:
    """A number without a +country code reads as a phone number when it starts with a trunk
    prefix or an (area code), or is grouped in three or more parts; never when it is a date."""
    if raw.startswith("+"):
        return True
    if DATE_SHAPE.match(raw):
        return False
    return raw.startswith(("0", "(")) or len(re.findall(r"\d+", raw)) >= 3


def _phones(text: str, regions: Sequence[str]) -> bool:
    """A number libphonenumber holds valid: in its own country when written with +, else in one of ``regions``."""
    import phonenumbers

    for region in ("ZZ", *regions):
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
            digits = re.sub(r"\D", "", match.raw_string)
            if len(digits) >= 13 and luhn_ok(digits):  # a card number is reported as a card
                continue
            if _written_like_a_phone(match.raw_string):
                return True
    return False


def find_pii(text: str, *, phone_regions: Sequence[str] = PHONE_REGIONS) -> list[str]:
    """The kinds of personal data found in ``text`` (empty when none)."""
    found: list[str] = []
    if EMAIL.search(text):
        found.append("email")
    if URL_QUERY.search(text):
        found.append("url-with-query")
    if _cards(text):
        found.append("card-number")
    if any(iban_ok(m.group(0)) for m in IBAN.finditer(text)):
        found.append("iban")
    if _national_id(text):
        found.append("national-id")
    if any(True for _ in _ips(text)):
        found.append("ip-address")
    # IBAN-shaped runs (valid or not) and IP addresses are not phone numbers.
    if _phones(IPV4.sub(" ", IBAN.sub(" ", text)), phone_regions):
        found.append("phone")
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
