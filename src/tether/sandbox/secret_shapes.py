"""Secrets in a value told by their shape rather than a vendor's prefix (`environment.py`'s
`TOKEN_PREFIXES` lists those): so that a vendor nobody listed yet is withheld by the rule its
token follows.

- A prefixed token: a short label of letters, `_` or `-`, maybe a version or kind (`v1_`,
  `live_`), then a long random body mixing digits and both cases (`vcp_...`, `tgp_v1_...`,
  `rnd_...`, `abc-...`), which no word, path, hash or id of the environment is.
- A secret assigned inside a value: `X_TOKEN=...`, `api_key: ...`, `"client_secret": "..."`,
  `db_pass=...`, `pwd=`, `creds=`, `credential=`, `auth=`, `apikey=` (any spelling a key uses)
  (a variable holding a `.env` file, a `--build-arg`, a JSON config), whose value is no
  reference (`$X`, `${X}`), path or plain word and mixes kinds of characters.
- A credential after an HTTP scheme word, in any case (`Bearer ...`, `bearer ...`, `Basic ...`).
- A private key's DER in base64 without its PEM armour (PKCS#8 plain or encrypted, PKCS#1
  RSA, SEC1 EC), told from a certificate or public key by its first fields.
- An OpenSSH private key's body without armour, a PuTTY key file, a docker `config.json`'s
  `auths` entries.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import math
import re
from collections import Counter

_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9_.-])[A-Za-z]{2,12}[_-](?:(?:v\d{1,2}|live|test|prod|dev|pat|sk)[_-])?"
    r"([A-Za-z0-9]{20,})(?![A-Za-z0-9])"
)
_ASSIGNED = re.compile(
    r"(?i)(?:token|secret|pass(?:w(?:or)?d|phrase)?|pwd|creds?|credentials?|auth|api[_-]?key"
    r"|access[_-]?key|private[_-]?key|_key)"
    r"[\"']?\s*(?:=|:)\s*[\"']?([^\s\"'&;,<>(){}]{12,})"
)
_SCHEME = re.compile(r"(?i)\b(?:bearer|basic|token)\s+([A-Za-z0-9._~+/-]{16,}=*)")
"""HTTP's scheme names are case-insensitive (RFC 9110 11.1): `bearer ...` is a credential too."""
_SETTING = re.compile(
    r"(?i)true|false|yes|no|on|off|y|n|t|f|enabled?|disabled?|none|null|auto|default|-?\d{1,2}"
)
_WORD_CHARS = re.compile(r"[A-Za-z0-9_-]+")
_OPENSSH_KEY = "b3BlbnNzaC1rZXktdjE"
"""base64 of `openssh-key-v1`, which begins an OpenSSH private key file's body (a public key's
`AAAA...` never holds it)."""
_DER_START = re.compile(r"(?<![A-Za-z0-9+/])M[A-Za-z0-9+/]{30,}")
_FIXED = re.compile(
    r"PuTTY-User-Key-File-\d+:"  # PuTTY private key file
    r"|\"(?:auth|identitytoken|registrytoken)\"\s*:\s*\"[A-Za-z0-9+/=._-]{8,}\""  # docker
)

_PKCS8_ENCRYPTION = (
    bytes.fromhex("06092a864886f70d01050d"),  # PBES2
    bytes.fromhex("060a2a864886f70d010c01"),  # PKCS#12 PBE
    bytes.fromhex("06092a864886f70d0105"),  # PKCS#5 v1 PBE
)


def entropy(text: str) -> float:
    """Shannon entropy of `text`, in bits a character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _class(c: str) -> int:
    return 0 if c.isdigit() else 1 if c.islower() else 2 if c.isupper() else 3


def _random(body: str, kinds: int, bits: float) -> bool:
    """Whether `body` looks drawn at random: `kinds` of digits, lower and upper case at
    least, `bits` of entropy a character, and the kind changing from one character to the
    next as often as chance has it (a third of the time at least: a camel-case name or a
    word with a year changes a few times, `ProjectName2026Release`). Punctuation is left out
    of the changes: a separator is no chance (`keys/id_ed25519` is two words and a number)."""
    classes = [k for k in map(_class, body) if k < 3]
    if len(set(classes)) < kinds or entropy(body) < bits:
        return False
    changes = sum(a != b for a, b in itertools.pairwise(classes))
    return changes >= len(body) / 3


def _letters_and_digits(value: str) -> bool:
    """Whether `value`, after a key word, is a password of letters and digits (`hunter2hunter2`,
    `abcdefghijklmnop1`, hex): no path, name or word (`MyServiceProductionToken` has no digit,
    `keys/id_ed25519` a `/`, `placeholder_value` none)."""
    return (
        _WORD_CHARS.fullmatch(value) is not None
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and entropy(value) >= 2.5
    )


def _der_length(data: bytes, at: int) -> tuple[int, int] | None:
    """(length, where the content starts) of the DER element whose length byte is at `at`."""
    if at >= len(data):
        return None
    first = data[at]
    if first < 0x80:
        return first, at + 1
    count = first & 0x7F
    if count == 0 or count > 3 or at + 1 + count > len(data):
        return None
    return int.from_bytes(data[at + 1 : at + 1 + count], "big"), at + 1 + count


def _private_key_der(data: bytes) -> bool:
    """Whether DER `data` begins a private key: a SEQUENCE holding version 0 or 1 and an
    algorithm (PKCS#8), an encryption algorithm and an OCTET STRING (PKCS#8 encrypted),
    version 0 and a big INTEGER (PKCS#1 RSA), or version 1 and an OCTET STRING (SEC1 EC).
    A certificate or public key begins with a SEQUENCE in a SEQUENCE, no version."""
    if len(data) < 12 or data[0] != 0x30:
        return False
    head = _der_length(data, 1)
    if head is None:
        return False
    body = data[head[1] :]
    if body[:3] in (b"\x02\x01\x00", b"\x02\x01\x01"):
        rest = body[3:4]
        return rest in (b"\x30", b"\x02", b"\x04")
    if body[:1] == b"\x30":
        inner = _der_length(body, 1)
        return inner is not None and any(
            body[inner[1] :].startswith(oid) for oid in _PKCS8_ENCRYPTION
        )
    return False


def _base64_der_private_key(value: str) -> bool:
    for found in _DER_START.finditer(value):
        text = found.group(0)[:64]
        text = text[: len(text) - len(text) % 4]
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            continue
        if _private_key_der(data):
            return True
    return False


def _is_reference(value: str) -> bool:
    return value.startswith(("$", "/", "~", "./", "../", "%", "<", "{{")) or "://" in value


def plain_setting(value: str) -> bool:
    """Whether `value` is a switch, not a secret (`true`, `off`, `auto`, `0`): what a variable
    whose name says token or key (`TOKENIZERS_PARALLELISM`, `USE_AUTH`) holds when it sets a
    behaviour. No credential is so short and so plain."""
    return _SETTING.fullmatch(value.strip()) is not None


def secret_shape(value: str) -> str | None:
    """What secret `value` holds by its shape (module docstring), or None."""
    for found in _PREFIXED.finditer(value):
        if _random(found.group(1), 3, 3.5):
            return "a prefixed token"
    for found in _ASSIGNED.finditer(value) if "=" in value or ":" in value else ():
        secret = found.group(1)
        if not _is_reference(secret) and (_random(secret, 2, 3.0) or _letters_and_digits(secret)):
            return "a secret assigned in the value"
    for found in _SCHEME.finditer(value) if " " in value else ():
        if _random(found.group(1), 2, 3.0):
            return "an HTTP credential"
    if ("PuTTY" in value or '"' in value) and _FIXED.search(value):
        return "a key file or registry credential"
    if _OPENSSH_KEY in value:
        return "an OpenSSH private key (base64)"
    if _base64_der_private_key(value):
        return "a private key (DER, base64)"
    return None
