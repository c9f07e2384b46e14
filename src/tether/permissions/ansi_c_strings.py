"""bash's `$'...'` strings: the text their backslash escapes stand for, as bash decodes them
(`\\xHH`, octal, `\\uHHHH`, `\\cX`, the C escapes; an unknown escape kept as written)."""

from __future__ import annotations

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def decode_ansi_c(body: str) -> str:
    """The text of `$'...'`: backslash escapes as bash reads them."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
        elif e in "01234567":
            digits = e
            while i < n and len(digits) < 3 and body[i] in "01234567":
                digits += body[i]
                i += 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif e in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[e]
            digits = ""
            while i < n and len(digits) < limit and body[i] in "0123456789abcdefABCDEF":
                digits += body[i]
                i += 1
            out.append(chr(min(int(digits, 16), 0x10FFFF)) if digits else "\\" + e)
        elif e == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)
